#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Drives bendsynth's web pad in headless Chromium over the DevTools protocol
(--remote-debugging-pipe: no chromedriver, no selenium; Python's standard library only).

    pad_driver.py SCENARIO URL [ARG...]

Scenarios (each prints `key value...` lines on stdout for the Swift test to check):
  play URL SHOT.png     three fingers down at known points, moved, lifted one by one;
                        tilt gamma -30 deg; a screenshot while they are down: prints the
                        dispatched points, and the screenshot's pixels under each finger
                        and on the empty pad
  guides URL SHOT.png X waits for the scale's guides; a finger down at pad x X: prints the
                        guides received, the page's text for the touch, and the x (CSS
                        px) of every guide line crossing the screenshot's row at 30 %
  sustain URL           a finger down on the pad, a second on the sustain button; the first
                        lifted (a ping answered after it), then the second
  hold URL X Y SECONDS  one finger down at pad (X, Y), held SECONDS, lifted: prints the
                        point (the LV2 plugin's phone-pad test)
  wrongtoken URL        waits for the page's message; a finger down and up anyway
  kill URL              one finger down, then Chromium killed: prints the kill time
  pages URL N           N pages at once (tabs), one finger each, held; then page N+1
  redraws URL N         N taps (down, two moves, up), each waited for on the page and its
                        frame: prints the pad's redraws at the start and during the taps
                        (COUNT_REDRAWS, run before the page's own script: fills of a
                        whole canvas, changes inside the #pad element), then a finger
                        held at the middle: the screenshot's pixel under it and the
                        light (text) pixels in the 160x22 px box 40 px above it
  status URL SECONDS    the status line watched while the page pings: the answers
                        the page got, the texts written to the line, the last text
  bench URL N [PATH]    N down/up pairs in a phone's viewport (PHONE), made by Chromium's
                        touch emulation (PATH emulated, the default) or by
                        Input.dispatchTouchEvent (dispatch): prints Chromium's version,
                        flags, the viewport and the path, the CLOCK_MONOTONIC ns of each
                        down's dispatch (the instrument stamps its arrival) and the
                        page's times for each pointerdown
  trace URL N           the bench's N taps (same viewport) under a Chromium trace: per
                        tap, the wait for the renderer's main frame that DevTools waits
                        for, that frame, and the routing to pointerdown
Exit status 0 when the scenario ran; 1 with a message on stderr otherwise.
"""
import base64
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

CHROMIUM = os.environ.get("BENDSYNTH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# Chromium features a headless harness turns off (named in the bench's printout and README).
QUIET_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "Translate", "MediaRouter", "OptimizationHints")


class Browser:
    """Chromium with its DevTools protocol on fds 3 (commands) and 4 (answers)."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="bendsynth-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
            os.setsid()

        self.flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--ignore-certificate-errors", "--remote-debugging-pipe", "--no-first-run",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows", "--window-size=800,600",
            # No emulated 60 Hz vsync: input is not held for the next frame (a phone's
            # display runs its own; headless has none). Without these two the bench's
            # median is ~14 ms, frame-bound inside Chromium before the page sees a touch.
            "--disable-gpu-vsync", "--disable-frame-rate-limit",
            # The browser's own background work, none of it the page's (as Puppeteer's
            # defaults): the address bar's popup, a WebUI page that Chromium 151+ preloads
            # in its own renderer at start (~1.5 s of CPU while the first touches land),
            # translation, media router, hints, sync, component and field-trial updates.
            "--disable-features=" + ",".join(QUIET_FEATURES),
            "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
            "--disable-extensions", "--disable-sync", "--disable-field-trial-config", "--metrics-recording-only",
        ]
        self.process = subprocess.Popen(
            [CHROMIUM] + self.flags + ["--user-data-dir=" + self.profile, "about:blank"],
            # 3 and 4 are kept too: the child closes every other fd after preexec_fn ran.
            pass_fds=(3, 4, to_chrome_r, from_chrome_w), preexec_fn=fds,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.front = None

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            answer = self.read()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def send(self, method, session=None, **params):
        """A command written without waiting for its answer (its answer, if any, is kept
        with the events by the next `call`)."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url, before=None):
        """A new page (tab) at url: its session id. `before`: a script run in the page
        before its own."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=session)
        self.call("Runtime.enable", session=session)
        if before:
            self.call("Page.addScriptToEvaluateOnNewDocument", session=session, source=before)
        self.call("Page.navigate", session=session, url=url)
        return session

    def evaluate(self, session, expression, await_promise=False):
        result = self.call("Runtime.evaluate", session=session, expression=expression,
                           returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, session, expression, what, seconds=20):
        """Polls a page expression until it is true (the page's own state, not a delay)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if self.evaluate(session, expression):
                    return
            except RuntimeError:
                pass  # the page is still loading
            time.sleep(0.02)
        raise RuntimeError(f"timed out waiting for {what} ({expression})")

    def next_frame(self, session):
        self.evaluate(session, "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", await_promise=True)

    def touch(self, session, kind, points):
        """Input.dispatchTouchEvent; points: [(id, x_px, y_px)]. The page is brought to
        the front first: Chromium does not answer input sent to a background tab."""
        if session != self.front:
            self.call("Page.bringToFront", session=session)
            self.front = session
        self.call("Input.dispatchTouchEvent", session=session, type=kind,
                  touchPoints=[{"id": i, "x": x, "y": y, "radiusX": 5, "radiusY": 5, "force": 1} for i, x, y in points])

    def close(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# The bench's viewport: a phone's (412 x 915 CSS px at 2.625 device pixels per px, a
# Pixel 7's), not the desktop window's; the page draws at the phone's resolution.
PHONE = {"width": 412, "height": 915, "deviceScaleFactor": 2.625, "mobile": True}


def as_phone(browser, session):
    browser.call("Emulation.setDeviceMetricsOverride", session=session, **PHONE)
    browser.call("Emulation.setTouchEmulationEnabled", session=session, enabled=True, maxTouchPoints=10)
    browser.next_frame(session)


def pad_size(browser, session):
    return browser.evaluate(session, "[pad.getBoundingClientRect().width, pad.getBoundingClientRect().height]")


def to_pixels(size, x, y):
    """Pad coordinates (x from the left, y from the bottom, 0...1) to CSS pixels."""
    return x * size[0], (1 - y) * size[1]


def png_pixels(data):
    """Decodes an 8-bit RGB/RGBA PNG (what Chromium writes): (width, height, rows of bytes, bytes per pixel)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"PNG depth {depth} colour {colour}"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for r in range(height):
        f, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, rows, bpp


def pixel(image, x, y):
    width, height, rows, bpp = image
    x, y = min(max(int(x), 0), width - 1), min(max(int(y), 0), height - 1)
    return tuple(rows[y][x * bpp:x * bpp + 3])


def connected(browser, url, before=None):
    session = browser.open(url, before)
    browser.wait_for(session, "typeof paired !== 'undefined' && paired === true", "the page to pair")
    return session


def scenario_play(browser, url, shot):
    session = connected(browser, url)
    browser.call("DeviceOrientation.setDeviceOrientationOverride", session=session, alpha=0, beta=0, gamma=-30)
    browser.wait_for(session, "tilt !== null && lastTiltSent > 0", "the tilt to be sent")
    size = pad_size(browser, session)
    points = [(0.25, 0.75), (0.5, 0.4), (0.8, 0.2)]
    moved = [(0.3, 0.7), (0.55, 0.45), (0.75, 0.25)]
    held = []
    for i, (x, y) in enumerate(points):
        held.append((i + 1, *to_pixels(size, x, y)))
        browser.touch(session, "touchStart", held)
        print("down", i + 1, x, y)
    held = [(i + 1, *to_pixels(size, x, y)) for i, (x, y) in enumerate(moved)]
    browser.touch(session, "touchMove", held)
    for i, (x, y) in enumerate(moved):
        print("move", i + 1, x, y)
    browser.wait_for(session, "touches.size === 3", "three touches on the page")
    browser.next_frame(session)
    png = base64.b64decode(browser.call("Page.captureScreenshot", session=session, format="png")["data"])
    with open(shot, "wb") as f:
        f.write(png)
    image = png_pixels(png)
    print("screenshot", image[0], image[1])
    for i, (x, y) in enumerate(moved):
        print("pixel", i + 1, *pixel(image, *to_pixels(size, x, y)))
    print("pixel empty", *pixel(image, *to_pixels(size, 0.1, 0.9)))
    for n in range(3):
        gone = held[n]
        browser.touch(session, "touchEnd", [gone])
        print("up", gone[0])
    browser.wait_for(session, "touches.size === 0", "the touches to end on the page")
    # The ups are sent; a ping's answer after them shows they reached the instrument.
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "a ping's answer after the ups")


def scenario_guides(browser, url, shot, x):
    session = connected(browser, url)
    browser.wait_for(session, "guides.length > 0", "the scale's guides")
    size = pad_size(browser, session)
    print("pad", size[0], size[1])
    for s in browser.evaluate(session, "guides.map(s => [s.x, s.ratio, s.degree, s.label])"):
        print("guide", *s)
    # The finger low on the pad: its circle and text stay clear of the scanned row.
    browser.touch(session, "touchStart", [(1, *to_pixels(size, x, 0.15))])
    browser.wait_for(session, "touches.size === 1", "the touch on the page")
    print("touch", browser.evaluate(session, "[...touches.values()].map(p => pitchText(p.x))[0]"))
    browser.next_frame(session)
    png = base64.b64decode(browser.call("Page.captureScreenshot", session=session, format="png")["data"])
    with open(shot, "wb") as f:
        f.write(png)
    image = png_pixels(png)
    scale = image[0] / size[0]
    row = int(0.3 * size[1] * scale)
    background = pixel(image, 0, row)
    lines, start = [], None
    for px in range(image[0] + 1):
        lit = px < image[0] and max(abs(a - b) for a, b in zip(pixel(image, px, row), background)) > 8
        if lit and start is None:
            start = px
        elif not lit and start is not None:
            lines.append((start + px - 1) / 2 / scale)
            start = None
    print("lines", *[round(v, 1) for v in lines])
    browser.touch(session, "touchEnd", [(1, *to_pixels(size, x, 0.15))])
    browser.wait_for(session, "touches.size === 0", "the touch to end on the page")


def scenario_sustain(browser, url):
    session = connected(browser, url)
    size = pad_size(browser, session)
    bx, by = browser.evaluate(session, "(() => { const r = sustainButton.getBoundingClientRect(); "
                                       "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    finger = (1, *to_pixels(size, 0.3, 0.5))
    button = (2, bx, by)
    browser.touch(session, "touchStart", [finger])
    browser.touch(session, "touchStart", [finger, button])
    browser.wait_for(session, "touches.size === 1 && sustained", "the touch and the sustain button")
    print("button", *browser.evaluate(session, "[sustainButton.className]"))
    browser.touch(session, "touchEnd", [finger])
    browser.wait_for(session, "touches.size === 0", "the finger's up on the page")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "a ping's answer after the finger's up")
    print("lifted")
    browser.touch(session, "touchEnd", [button])
    browser.wait_for(session, "!sustained", "the sustain button let go")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "a ping's answer after the let-go")


def scenario_hold(browser, url, x, y, seconds):
    session = connected(browser, url)
    finger = (1, *to_pixels(pad_size(browser, session), x, y))
    browser.touch(session, "touchStart", [finger])
    browser.wait_for(session, "touches.size === 1", "the finger on the page")
    print("down", x, y)
    sys.stdout.flush()
    time.sleep(seconds)  # the finger is held this long: what the test listens to
    browser.touch(session, "touchEnd", [finger])
    browser.wait_for(session, "touches.size === 0", "the finger's up on the page")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "a ping's answer after the up")
    print("up")


def scenario_wrongtoken(browser, url):
    session = browser.open(url)
    browser.wait_for(session, "typeof message !== 'undefined' && !message.hidden", "the page's message")
    print("message", browser.evaluate(session, "message.textContent"))
    print("status", browser.evaluate(session, "statusLine.textContent"))
    size = pad_size(browser, session)
    browser.touch(session, "touchStart", [(1, *to_pixels(size, 0.5, 0.5))])
    browser.touch(session, "touchEnd", [(1, *to_pixels(size, 0.5, 0.5))])
    browser.next_frame(session)


def scenario_kill(browser, url):
    session = connected(browser, url)
    size = pad_size(browser, session)
    browser.touch(session, "touchStart", [(1, *to_pixels(size, 0.6, 0.6))])
    browser.wait_for(session, "touches.size === 1", "the touch on the page")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "a ping's answer after the down")
    os.killpg(browser.process.pid, signal.SIGKILL)
    print("killed", time.monotonic_ns())
    browser.process.wait()


def scenario_pages(browser, url, n):
    sessions = [browser.open(url) for _ in range(n)]
    for i, session in enumerate(sessions):
        browser.wait_for(session, "typeof paired !== 'undefined' && paired === true", f"page {i + 1} to pair")
        size = pad_size(browser, session)
        x = 0.1 + 0.1 * i
        browser.touch(session, "touchStart", [(1, *to_pixels(size, x, 0.5))])
        print("down", i + 1, round(x, 3), 0.5)
    for i, session in enumerate(sessions):
        browser.wait_for(session, "touches.size === 1", f"page {i + 1}'s touch")
        browser.evaluate(session, "rtt = null")
        browser.wait_for(session, "rtt !== null", f"page {i + 1}'s ping after its down")
    extra = browser.open(url)
    browser.wait_for(extra, "typeof message !== 'undefined' && !message.hidden", "the extra page's message")
    print("extra", browser.evaluate(extra, "message.textContent"))
    for i, session in enumerate(sessions):
        size = pad_size(browser, session)
        browser.touch(session, "touchEnd", [(1, *to_pixels(size, 0.1 + 0.1 * i, 0.5))])
    for session in sessions:
        browser.wait_for(session, "touches.size === 0", "the touches to end")


# Counts the page's full-pad redraws, whatever its own code: a fill of a 2D canvas over
# >= 90 % of its area (fillRect/clearRect), or a change of the pad element's subtree (a
# MutationObserver callback: the changes of one task).
COUNT_REDRAWS = """
window.padRedraws = 0;
for (const name of ["fillRect", "clearRect"]) {
  const original = CanvasRenderingContext2D.prototype[name];
  CanvasRenderingContext2D.prototype[name] = function (x, y, w, h) {
    const c = this.canvas;
    if (c.isConnected && Math.abs(w * h) >= 0.9 * c.clientWidth * c.clientHeight) window.padRedraws++;
    return original.apply(this, arguments);
  };
}
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => { window.padRedraws++; })
    .observe(document.getElementById("pad"), { childList: true, subtree: true, attributes: true, characterData: true });
});
"""


def scenario_redraws(browser, url, n):
    session = connected(browser, url, COUNT_REDRAWS)
    size = pad_size(browser, session)
    browser.next_frame(session)
    print("start", browser.evaluate(session, "padRedraws"))
    browser.evaluate(session, "padRedraws = 0")
    for i in range(n):
        x = 0.2 + 0.6 * i / max(1, n - 1)
        browser.touch(session, "touchStart", [(1, *to_pixels(size, x, 0.5))])
        browser.touch(session, "touchMove", [(1, *to_pixels(size, x + 0.02, 0.55))])
        browser.touch(session, "touchMove", [(1, *to_pixels(size, x + 0.04, 0.6))])
        browser.wait_for(session, "touches.size === 1", "the touch on the page")
        browser.next_frame(session)
        browser.touch(session, "touchEnd", [(1, *to_pixels(size, x + 0.04, 0.6))])
        browser.wait_for(session, "touches.size === 0", "the up on the page")
        browser.next_frame(session)
    print("taps", n)
    print("redraws", browser.evaluate(session, "padRedraws"))
    cx, cy = to_pixels(size, 0.5, 0.5)
    browser.touch(session, "touchStart", [(1, cx, cy)])
    browser.wait_for(session, "touches.size === 1 && [...touches.values()][0].heard", "the held touch on the page, answered")
    browser.next_frame(session)
    png = base64.b64decode(browser.call("Page.captureScreenshot", session=session, format="png")["data"])
    image = png_pixels(png)
    scale = image[0] / size[0]
    print("pixel finger", *pixel(image, cx * scale, cy * scale))
    light = sum(1 for px in range(int((cx - 80) * scale), int((cx + 80) * scale))
                for py in range(int((cy - 62) * scale), int((cy - 40) * scale))
                if min(pixel(image, px, py)) > 160)
    print("label light", light)
    browser.touch(session, "touchEnd", [(1, cx, cy)])
    browser.wait_for(session, "touches.size === 0", "the held touch's up")


def scenario_status(browser, url, seconds):
    """Watches the status line for SECONDS while the page pings (5 a second): prints
    `pongs N` (the instrument's answers the page got), `changes N` (new texts written to
    the status line) and `text ...` (the last one)."""
    session = connected(browser, url)
    pongs, changes, text = browser.evaluate(session, f"""new Promise(done => {{
        let pongs = 0, changes = 0;
        const answer = socket.onmessage;
        socket.onmessage = (e) => {{ if (String(e.data).startsWith("P ")) pongs++; answer(e); }};
        const watch = new MutationObserver((records) => {{ changes += records.length; }});
        watch.observe(statusLine, {{ childList: true, characterData: true, subtree: true }});
        setTimeout(() => {{ watch.disconnect(); done([pongs, changes, statusLine.textContent]); }}, {seconds * 1000});
    }})""", await_promise=True)
    print("pongs", pongs)
    print("changes", changes)
    print("text", text)


def scenario_bench(browser, url, n, path="emulated"):
    """Prints `browser PRODUCT`, `flags FLAG...` (Chromium's command line) and `input PATH`,
    then per touch `down MONO_NS WALL_NS` at dispatch, then `page WALL_NS EVENT_WALL_NS` for
    each pointerdown the page saw: when its listener ran and the event's own timeStamp — the
    instant the browser process made the touch event from the DevTools command
    (performance.timeOrigin + ms: wall clock, 0.1 ms).

    The two ways DevTools makes a touch (content/browser/devtools/protocol/input_handler.cc):
    - `emulated`: Chromium's touch emulation (`Emulation.setEmitTouchEventsForMouse`, DevTools'
      device mode): the browser process turns each `Input.dispatchMouseEvent` into a touch
      event and routes it to the page as a touchscreen's. The page gets a `pointerdown` of
      pointerType "touch" (checked) and a `touchstart`. DevTools never answers those mouse
      commands (the emulator takes the event and its acknowledgement with it), so they are
      written without waiting; the page's own state says when the down has arrived (then
      the lift is sent) and when the lift has.
    - `dispatch`: `Input.dispatchTouchEvent`, which first asks the renderer for a frame
      (`InsertVisualStateCallback`, "so the compositor is up to date") and routes the touch
      only when that frame is done: a wait that a touchscreen's touch does not have."""
    print("browser", browser.call("Browser.getVersion")["product"])
    print("flags", *[f for f in browser.flags if f != "--no-sandbox"])
    print("viewport", f"{PHONE['width']}x{PHONE['height']}", PHONE["deviceScaleFactor"])
    print("input", path)
    session = connected(browser, url)
    as_phone(browser, session)
    if path == "emulated":
        browser.call("Emulation.setEmitTouchEventsForMouse", session=session, enabled=True, configuration="mobile")
    elif path != "dispatch":
        raise RuntimeError(f"unknown input path '{path}' (emulated or dispatch)")
    browser.evaluate(session, "window.benchDowns = []; window.benchKinds = new Set(); pad.addEventListener('pointerdown', (e) => {"
                              "benchDowns.push([performance.timeOrigin + performance.now(), performance.timeOrigin + e.timeStamp]);"
                              " benchKinds.add(e.pointerType) }, true)")
    size = pad_size(browser, session)
    gaps = random.Random(11)
    for i in range(n):
        time.sleep(gaps.uniform(0.01, 0.03))  # separate taps, at random phases of the page's frames
        x, y = to_pixels(size, 0.2 + 0.6 * (i % 50) / 50, 0.5)
        t, wall = time.monotonic_ns(), time.time_ns()
        if path == "emulated":
            browser.send("Input.dispatchMouseEvent", session=session, type="mousePressed", x=x, y=y, button="left", buttons=1, clickCount=1)
            print("down", t, wall)
            # Lifted once the page has the down, as dispatchTouchEvent's answer paces the other path.
            browser.wait_for(session, "benchDowns.length === %d" % (i + 1), "the down")
            browser.send("Input.dispatchMouseEvent", session=session, type="mouseReleased", x=x, y=y, button="left", buttons=0, clickCount=1)
        else:
            browser.touch(session, "touchStart", [(1, x, y)])
            print("down", t, wall)
            browser.touch(session, "touchEnd", [(1, x, y)])
        browser.wait_for(session, "touches.size === 0 && benchDowns.length === %d" % (i + 1), "the up")
    kinds = browser.evaluate(session, "[...benchKinds]")
    if kinds != ["touch"]:
        raise RuntimeError(f"the page's pointerdowns were of pointerType {kinds}, not only touch")
    browser.evaluate(session, "rtt = null")
    browser.wait_for(session, "rtt !== null", "a ping's answer after the last up")
    for handler, event in browser.evaluate(session, "benchDowns"):
        print("page", int(handler * 1e6), int(event * 1e6))


def scenario_trace(browser, url, n):
    """The bench's taps (same gaps, same viewport) under a Chromium trace, to see where
    Chromium's part goes. DevTools routes a touch only once the page's renderer has made a
    main frame for it (InsertVisualStateCallback); the renderer's compositor sends at most
    one main frame per frame, and a frame whose main frame had nothing to commit lasts
    until its deadline, 16.7 ms after it began (cc's LATE deadline). Per tap `tap I GAP_MS
    SLOT FRAME ROUTE WAITED`: SLOT from the browser handling the DevTools command to the
    renderer sending that main frame, FRAME from there to the touch forwarded to the
    renderer (the main frame, its commit and draw, DevTools' callback and hit test), ROUTE
    from there to the page's pointerdown listener (ms, trace clock), WAITED 1 when the main
    frame was sent only after the frame open at the command reached its deadline. Then
    `slot`/`frame`/`route` summary lines (median, p90, p99, max ms) and `waited COUNT
    MEDIAN_SLOT MAX_SLOT`."""
    session = connected(browser, url)
    as_phone(browser, session)
    browser.evaluate(session, "pad.addEventListener('pointerdown', () => performance.mark('bench-pointerdown'), true)")
    size = pad_size(browser, session)
    browser.call("Tracing.start", categories="devtools,input,blink.user_timing,cc,benchmark", transferMode="ReturnAsStream")
    gaps = random.Random(11)
    taken = []
    for i in range(n):
        gap = gaps.uniform(0.01, 0.03)
        taken.append(gap)
        time.sleep(gap)
        x, y = to_pixels(size, 0.2 + 0.6 * (i % 50) / 50, 0.5)
        browser.touch(session, "touchStart", [(1, x, y)])
        browser.touch(session, "touchEnd", [(1, x, y)])
        browser.wait_for(session, "touches.size === 0", "the up")
    browser.call("Tracing.end")
    while True:
        event = browser.events.pop(0) if browser.events else browser.read()
        if event.get("method") == "Tracing.tracingComplete":
            stream = event["params"]["stream"]
            break
    data = b""
    while True:
        chunk = browser.call("IO.read", handle=stream, size=1 << 20)
        data += base64.b64decode(chunk["data"]) if chunk.get("base64Encoded") else chunk["data"].encode()
        if chunk.get("eof"):
            break
    trace = json.loads(data)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    renderers = {e["pid"] for e in events if e.get("ph") == "M" and e["name"] == "process_name" and e["args"].get("name") == "Renderer"}
    def times(name, where=lambda e: True):
        return sorted(e["ts"] for e in events if e["name"] == name and where(e))
    commands = times("DevToolsSession::HandleCommand in Browser", lambda e: "dispatchTouchEvent" in json.dumps(e.get("args", {})))[0::2]
    forwarded = times("RenderWidgetHostInputEventRouter::ForwardEmulatedTouchEvent")
    marks = times("bench-pointerdown")
    main_frames = times("SendBeginMainFrame", lambda e: e["pid"] in renderers and bool(e.get("args")))
    deadlines = times("Scheduler::OnBeginImplFrameDeadline", lambda e: e["pid"] in renderers)
    slots, frames, routes, waited = [], [], [], []
    for i, c in enumerate(commands):
        f = next(t for t in forwarded if t > c)
        m = next(t for t in marks if t > f)
        sent = next((t for t in main_frames if c < t < f), f)
        late = any(c < t < sent for t in deadlines)
        slots.append((sent - c) / 1000)
        frames.append((f - sent) / 1000)
        routes.append((m - f) / 1000)
        if late:
            waited.append(slots[-1])
        print("tap", i, round(taken[i] * 1000, 1), round(slots[-1], 2), round(frames[-1], 2), round(routes[-1], 2), int(late))
    def summary(v):
        s = sorted(v)
        return [round(s[len(s) // 2], 2), round(s[len(s) * 9 // 10], 2), round(s[min(len(s) - 1, len(s) * 99 // 100)], 2), round(s[-1], 2)]
    print("slot", *summary(slots))
    print("frame", *summary(frames))
    print("route", *summary(routes))
    print("waited", len(waited), *(summary(waited)[::3] if waited else [0, 0]))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    scenario, url, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    browser = Browser()
    try:
        if scenario == "play":
            scenario_play(browser, url, args[0])
        elif scenario == "guides":
            scenario_guides(browser, url, args[0], float(args[1]))
        elif scenario == "sustain":
            scenario_sustain(browser, url)
        elif scenario == "hold":
            scenario_hold(browser, url, float(args[0]), float(args[1]), float(args[2]))
        elif scenario == "wrongtoken":
            scenario_wrongtoken(browser, url)
        elif scenario == "kill":
            scenario_kill(browser, url)
        elif scenario == "pages":
            scenario_pages(browser, url, int(args[0]))
        elif scenario == "redraws":
            scenario_redraws(browser, url, int(args[0]))
        elif scenario == "status":
            scenario_status(browser, url, float(args[0]))
        elif scenario == "bench":
            scenario_bench(browser, url, int(args[0]), *args[1:2])
        elif scenario == "trace":
            scenario_trace(browser, url, int(args[0]))
        else:
            print(f"unknown scenario '{scenario}'", file=sys.stderr)
            return 2
        print("done")
        return 0
    except Exception as e:  # the test shows it
        print(f"pad_driver {scenario}: {e}", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
        browser.close()


if __name__ == "__main__":
    sys.exit(main())
