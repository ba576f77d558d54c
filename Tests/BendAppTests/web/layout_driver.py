#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The web pad's layout and its stalled fingers, in headless Chromium (pad_driver's
Browser, over --remote-debugging-pipe).

    layout_driver.py SCENARIO URL

Scenarios (each prints `key value...` lines on stdout for the Swift test to check):
  layout URL   at 360x640, 400x800 and 800x400 CSS px (a phone's viewport): `view W H`,
               every guide label's text and box (`guide TEXT L T R B`); six fingers
               down (three close together, one beside the sustain button, two side by
               side just above the guides' labels at the bottom), and once the
               instrument has answered for each, the sustain button's and status line's
               boxes, every guide label still shown (`heldguide TEXT L T R B`) and each
               shown touch label's text box (`touchlabel TEXT L T R B`, the text's own
               extent)
  label URL SPEC  one finger down at pad y 0.5 and x SPEC (a number), or a pitch CENTS
               from the guide named NAME (SPEC `NAME:CENTS`, e.g. `B3:-20`): every text
               the finger's label showed until the instrument's answer had come and two
               more (`shown TEXT...`), and the label then (`label TEXT`); lifted
  stall URL    a finger down until the instrument's answer says it sounds; the page's
               script paused 3 s (Debugger.pause: no pings, the instrument ends the
               touch for silence); resumed: the page's finger state and label once an
               answer came (`silent ...`); the finger moved: its state once the
               instrument plays it again (`again ...`); lifted
  voices URL   every answer to a ping checked as the page handles it: the voices it
               says and the status line's text right after (`answer VOICES TEXT`), while
               a finger goes down, is held and lifts
Exit status 0 when the scenario ran; 1 with a message on stderr otherwise.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pad_driver import Browser, connected, pad_size, to_pixels  # noqa: E402

VIEWS = [(360, 640), (400, 800), (800, 400)]

BOXES = """(() => {
  const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const out = [["sustain", "-", ...r(sustainButton)], ["status", "-", ...r(statusLine)]];
  for (const t of pad.querySelectorAll("text.guide-label")) {
    if (getComputedStyle(t).visibility !== "visible") continue;
    out.push(["guide", t.textContent.replace(/ /g, "_"), ...r(t)]);
  }
  for (const l of touchLayer.querySelectorAll(".touch-label")) {
    if (getComputedStyle(l).visibility !== "visible" || !l.textContent) continue;
    const range = document.createRange(); range.selectNodeContents(l);
    const b = range.getBoundingClientRect();
    out.push(["touchlabel", l.textContent.replace(/ /g, "_"), b.left, b.top, b.right, b.bottom]);
  }
  return out;
})()"""


def scenario_layout(browser, url):
    session = connected(browser, url)
    browser.wait_for(session, "guides.length > 0", "the scale's guides")
    for width, height in VIEWS:
        browser.call("Emulation.setDeviceMetricsOverride", session=session, width=width, height=height,
                     deviceScaleFactor=1, mobile=True)
        browser.wait_for(session, f"Math.round(padRect.width) === {width} && Math.round(padRect.height) === {height}",
                         "the pad drawn at the new size")
        browser.next_frame(session)
        print("view", width, height)
        for kind, text, *b in browser.evaluate(session, BOXES):
            if kind == "guide":
                print(kind, text, *[round(v, 1) for v in b])
        size = pad_size(browser, session)
        fingers = [(1, 0.5, 0.3), (2, 0.55, 0.32), (3, 0.6, 0.28), (4, 0.8, 0.12), (5, 0.3, 0.035), (6, 0.33, 0.04)]
        held = []
        for i, x, y in fingers:
            held.append((i, *to_pixels(size, x, y)))
            browser.touch(session, "touchStart", held)
        browser.wait_for(session, f"touches.size === {len(fingers)} && [...touches.values()].every(t => t.heard)",
                         "the touches on the page, each answered")
        browser.next_frame(session)
        for kind, text, *b in browser.evaluate(session, BOXES):
            print("held" + kind if kind == "guide" else kind, text, *[round(v, 1) for v in b])
        browser.touch(session, "touchEnd", held)
        browser.wait_for(session, "touches.size === 0", "the touches to end on the page")


def finger(browser, session):
    return browser.evaluate(session, "(() => { const t = [...touches.values()][0]; const m = marks.get([...touches.keys()][0]);"
                                     " return [t.sounding, m ? m.text.replace(/ /g, '_') : '-', m ? m.dot.className.replace(/ /g, '.') : '-']; })()")


def scenario_stall(browser, url):
    session = connected(browser, url)
    size = pad_size(browser, session)
    start = (1, *to_pixels(size, 0.5, 0.5))
    browser.touch(session, "touchStart", [start])
    browser.wait_for(session, "touches.size === 1 && voices === 1", "the instrument to play the finger")
    browser.call("Debugger.enable", session=session)
    browser.call("Debugger.pause", session=session)
    time.sleep(3)  # the stall itself: three seconds without the page's pings
    browser.call("Debugger.resume", session=session)
    browser.wait_for(session, "[...touches.values()][0].sounding === false", "an answer saying the finger is ended")
    browser.next_frame(session)
    print("silent", *finger(browser, session))
    moved = (1, *to_pixels(size, 0.55, 0.5))
    browser.touch(session, "touchMove", [moved])
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null && voices === 1", "the instrument to play the finger again")
    browser.wait_for(session, "[...touches.values()][0].sounding === true && [...touches.values()][0].heard", "the finger sounding")
    browser.next_frame(session)
    print("again", *finger(browser, session))
    browser.touch(session, "touchEnd", [moved])
    browser.wait_for(session, "touches.size === 0", "the touch to end on the page")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null && voices === 0", "the instrument to end it")


WATCH = """(() => {
  window.answers = [];
  const ws = socket, handle = ws.onmessage;
  ws.onmessage = (e) => {
    handle(e);
    if (String(e.data).startsWith("P ")) answers.push([voices, statusLine.textContent.replace(/ /g, "_")]);
  };
})()"""


def scenario_voices(browser, url):
    session = connected(browser, url)
    browser.evaluate(session, WATCH)
    browser.wait_for(session, "answers.length >= 2", "two answers")
    size = pad_size(browser, session)
    point = (1, *to_pixels(size, 0.5, 0.5))
    browser.touch(session, "touchStart", [point])
    browser.wait_for(session, "answers.some(a => a[0] === 1)", "an answer with the voice")
    n = browser.evaluate(session, "answers.length")
    browser.wait_for(session, f"answers.length >= {n + 2}", "two more answers")
    browser.touch(session, "touchEnd", [point])
    browser.wait_for(session, f"answers.length >= {n + 3} && answers[answers.length - 1][0] === 0", "an answer after the up")
    for v, text in browser.evaluate(session, "answers"):
        print("answer", v, text)


SHOWN = """(() => {
  window.shownLabels = [];
  const place = placeTouches;
  placeTouches = function () {
    place();
    for (const m of marks.values()) if (m.label.style.visibility === "visible") shownLabels.push(m.text.replace(/ /g, "_"));
  };
})()"""


def pad_x(browser, session, spec):
    """SPEC: a pad x, or NAME:CENTS, the x whose pitch is CENTS from the guide NAME (by
    bisection of the page's own pitch map)."""
    if ":" not in spec:
        return float(spec)
    name, cents = spec.split(":")
    return browser.evaluate(session, f"""(() => {{
      const g = guides.find(s => s.name === {name!r});
      const want = g.ratio * Math.pow(2, {float(cents)} / 1200);
      let lo = 0, hi = 1;
      for (let i = 0; i < 60; i++) {{ const mid = (lo + hi) / 2; if (ratio(mid) < want) lo = mid; else hi = mid; }}
      return (lo + hi) / 2;
    }})()""")


def scenario_label(browser, url, spec):
    session = connected(browser, url)
    if ":" in spec:
        browser.wait_for(session, "guides.length > 0", "the scale's guides")
    browser.evaluate(session, SHOWN)
    size = pad_size(browser, session)
    point = (1, *to_pixels(size, pad_x(browser, session, spec), 0.5))
    browser.touch(session, "touchStart", [point])
    browser.wait_for(session, "touches.size === 1 && [...touches.values()][0].heard", "the instrument's answer for the finger")
    browser.next_frame(session)
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "an answer")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "another answer")
    browser.next_frame(session)
    print("shown", *browser.evaluate(session, "shownLabels"))
    print("label", browser.evaluate(session, "[...marks.values()][0].text.replace(/ /g, '_')"))
    browser.touch(session, "touchEnd", [point])
    browser.wait_for(session, "touches.size === 0", "the touch to end on the page")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null && voices === 0", "the instrument to end it")


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    scenario, url = sys.argv[1], sys.argv[2]
    browser = Browser()
    try:
        if scenario == "layout":
            scenario_layout(browser, url)
        elif scenario == "stall":
            scenario_stall(browser, url)
        elif scenario == "voices":
            scenario_voices(browser, url)
        elif scenario == "label":
            scenario_label(browser, url, sys.argv[3])
        else:
            print(f"unknown scenario '{scenario}'", file=sys.stderr)
            return 2
        print("done")
        return 0
    except Exception as e:  # the test shows it
        print(f"layout_driver {scenario}: {e}", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
