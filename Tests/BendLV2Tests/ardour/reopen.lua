-- SPDX-License-Identifier: GPL-3.0-or-later
-- ardour7-lua reopen.lua DIR NAME URI
-- Opens the saved session DIR/NAME.ardour (its plugins restored from their saved
-- state), lists its tracks' instruments and regions, and saves it again: a session as a
-- user reopens and saves it. Lines starting "bendsynth-test:" are read by ArdourTests.
local dir, name, uri = arg[1], arg[2], arg[3]
assert(load_session(dir, name), "load_session " .. dir)
local found = 0
for t in Session:get_tracks():iter() do
  local i = 0
  while true do
    local proc = t:nth_plugin(i)
    if proc:isnil() then break end
    local p = proc:to_insert():plugin(0)
    if p:unique_id() == uri then found = found + 1 end
    print("bendsynth-test: track " .. t:name() .. " plugin " .. p:unique_id())
    i = i + 1
  end
  print("bendsynth-test: track " .. t:name() .. " regions " .. t:to_track():playlist():n_regions())
end
assert(found == 1, "the reopened session has " .. found .. " instances of " .. uri)
assert(Session:save_state("", false, false, false, false, false) == 0, "save_state")
print("bendsynth-test: saved")
close_session()
