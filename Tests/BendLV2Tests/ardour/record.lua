-- SPDX-License-Identifier: GPL-3.0-or-later
-- ardour7-lua record.lua DIR NAME URI NOTES [PRESET]
-- A new session DIR/NAME.ardour (48 kHz, the "None (Dummy)" backend ardour7-lua
-- starts): one MIDI track with the LV2 instrument URI (its preset labelled PRESET
-- loaded first, when given), the notes NOTES ("57,60,64": MIDI keys) recorded one at a
-- time through Ardour's virtual keyboard port, each 0.6 s long, one a second from 0.5 s
-- into the take, then the session saved. Ardour's Lua cannot make MIDI regions: a
-- recording is how notes get into a session without its GUI. Lines starting "bendsynth-
-- test:" are read by ArdourTests.
local dir, name, uri, notelist, preset = arg[1], arg[2], arg[3], arg[4], arg[5]

-- Waits (polling the session every 5 ms) until pred() holds; an error after `seconds`.
local function wait_for(what, seconds, pred)
  local deadline = os.time() + seconds
  while not pred() do
    if os.time() > deadline then error("timed out waiting for " .. what) end
    sleep(0.005)
  end
end

assert(create_session(dir, name, 48000), "create_session " .. dir)
local info = ARDOUR.LuaAPI.new_plugin_info(uri, ARDOUR.PluginType.LV2)
assert(not info:isnil(), "no LV2 plugin " .. uri .. " (LV2_PATH?)")
local tracks = Session:new_midi_track(ARDOUR.ChanCount(ARDOUR.DataType("midi"), 1),
  ARDOUR.ChanCount(ARDOUR.DataType("audio"), 2), true, info, nil, nil, 1, "synth",
  ARDOUR.PresentationInfo.max_order, ARDOUR.TrackMode.Normal, true)
assert(tracks:size() == 1, "new_midi_track")
local track = tracks:front()

-- The instrument on the track (Ardour logs and goes on without it when it fails).
local plugin
local i = 0
while true do
  local proc = track:nth_plugin(i)
  if proc:isnil() then break end
  local p = proc:to_insert():plugin(0)
  if p:unique_id() == uri then plugin = p end
  i = i + 1
end
assert(plugin, "the track has no " .. uri .. ": its instantiation failed")
print("bendsynth-test: plugin " .. plugin:name())

if preset and preset ~= "" then
  local record = plugin:preset_by_label(preset)
  assert(record and record.valid, "no preset labelled " .. preset)
  assert(plugin:load_preset(record), "load_preset " .. record.uri)
  print("bendsynth-test: preset " .. plugin:last_preset().label .. " <" .. record.uri .. ">")
end

-- The virtual keyboard port (an AsyncMIDIPort: writes from this thread are queued and
-- sent in the next process cycle) into the track's input.
local keyboard
local _, ports = AudioEngine:get_ports(ARDOUR.DataType("midi"), ARDOUR.PortList())
for p in ports[2]:iter() do
  if p:name() == "x-virtual-keyboard" then keyboard = p:to_asyncmidiport() end
end
assert(keyboard and not keyboard:isnil(), "no x-virtual-keyboard port")
local input = track:input():midi(0)
if not keyboard:connected_to(input:name()) then assert(keyboard:connect(input:name()) == 0, "connect") end

local parser = ARDOUR.RawMidiParser()
local function send(bytes)
  for _, b in ipairs(bytes) do
    if parser:process_byte(b) then
      assert(keyboard:write(parser:midi_buffer(), parser:buffer_size(), 0) == parser:buffer_size(), "write")
    end
  end
end

track:rec_enable_control():set_value(1, PBD.GroupControlDisposition.NoGroup)
Session:maybe_enable_record(false)
Session:request_roll(ARDOUR.TransportRequestSource.TRS_UI)
wait_for("the recording to start", 10, function() return Session:actively_recording() end)
local rate = Session:nominal_sample_rate()
local start = Session:transport_sample()
local count = 0
for key in string.gmatch(notelist, "%d+") do
  local on = start + math.floor(rate * (0.5 + count))
  wait_for("the transport to reach a note", 10, function() return Session:transport_sample() >= on end)
  send({0x90, tonumber(key), 100})
  local off = on + math.floor(rate * 0.6)
  wait_for("the transport to reach a note's end", 10, function() return Session:transport_sample() >= off end)
  send({0x80, tonumber(key), 64})
  count = count + 1
end
local stop = start + math.floor(rate * (count + 0.5))
wait_for("the take's end", 10, function() return Session:transport_sample() >= stop end)
Session:request_stop(false, false, ARDOUR.TransportRequestSource.TRS_UI)
wait_for("the transport to stop", 10, function() return not Session:transport_rolling() end)
local playlist = track:playlist()
wait_for("the take's region", 10, function() return playlist:n_regions() > 0 end)
for r in playlist:region_list():iter() do
  print("bendsynth-test: region " .. r:name() .. " at " .. r:position():samples() .. ", " .. r:length():samples() .. " frames")
end
assert(Session:save_state("", false, false, false, false, false) == 0, "save_state")
print("bendsynth-test: saved")
close_session()
