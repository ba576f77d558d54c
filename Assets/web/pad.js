// SPDX-License-Identifier: GPL-3.0-or-later
// bendsynth's web pad: every finger a touch, tilt from the phone's orientation, sent to
// the instrument over a WebSocket (protocol: docs/WEB.md). No framework, no CDN.
"use strict";

const pad = document.getElementById("pad");          // the pad's still layer (the guides, SVG) and the touches' target
const touchLayer = document.getElementById("touches"); // each touch an element moved by `transform`
const statusLine = document.getElementById("status");
const tiltButton = document.getElementById("tilt");
const sustainButton = document.getElementById("sustain");
const panicButton = document.getElementById("panic");
const message = document.getElementById("message");
const measure = document.createElement("canvas").getContext("2d"); // a label's width, without a layout
const LABEL_FONT = "15px system-ui, sans-serif", GUIDE_FONT = "13px system-ui, sans-serif";
const token = location.hash.slice(1);

let socket = null;
let paired = false;
let stopped = false;          // a wrong token: no reconnecting
let pitchMap = { kind: "linear", octaves: 2 };
let toneNote = 69;            // the MIDI note the tone sounds at (the `ok` message): note names without a scale
let guides = [];              // the scale's steps on the pad (the `guides` message): {x, ratio, degree, label, name}
let rtt = null, xruns = 0, voices = 0, phone = 0;
let tilt = null;
// pointerId → {x, y, order, since, sounding, cents, heard}: `since` the time of the down
// (or of the move that started it again), `sounding` and `cents` as the last pong sent
// after `since` said (a finger the instrument ended is not sounding; cents from the
// finger's pitch to the one that sounds, which --round moves); `heard`: such a pong came,
// so the label shows the pitch that sounds, never the finger's unrounded one (a down
// sends a ping of its own: the label waits a round trip).
const touches = new Map();
let downs = 0;                // downs so far: a label's place goes to the newer finger
const pendingMoves = new Map(); // pointerId → line, sent when the socket's buffer is empty
let flushTimer = null;

// ---- the instrument's mapping (BendControl's PitchMap and gain) ----
function ratio(x) {
  if (pitchMap.kind === "exp") return Math.min(pitchMap.centre * Math.pow(2, (x - 0.5) * pitchMap.octaves), 4);
  return 2 * x;
}
// A touch's pitch as the terminal pad shows it, `cents` from the finger's pitch to the
// one that sounds: with a scale, its nearest step with its octave and the offset in cents
// ("A#4+30¢"); without, its ratio and the nearest note ("×1.08 A#4+33¢").
const NOTE_NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"];
function noteName(midi) {
  const n = Math.round(midi);
  return NOTE_NAMES[((n % 12) + 12) % 12] + (Math.floor(n / 12) - 1);
}
function offsetText(c) { c = Math.round(c); return (c >= 0 ? "+" : "") + c + "¢"; }
function pitchText(x, cents) {
  const r = ratio(x) * Math.pow(2, (cents || 0) / 1200);
  if (!(r > 0)) return "×" + r.toFixed(2);
  if (guides.length === 0) {
    const midi = toneNote + 12 * Math.log2(r);
    return "×" + r.toFixed(2) + " " + noteName(midi) + offsetText(100 * (midi - Math.round(midi)));
  }
  let best = null, offset = 0;
  for (const s of guides) {
    const c = 1200 * Math.log2(r / s.ratio);
    if (best === null || Math.abs(c) < Math.abs(offset)) { best = s; offset = c; }
  }
  return best.name + offsetText(offset);
}
function clamp(v, lo, hi) { return Math.min(Math.max(v, lo), hi); }
function num(v) { return (Math.round(v * 1e5) / 1e5).toString(); }

// ---- the connection ----
function connect() {
  if (stopped) return;
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const ws = new WebSocket(url, "bendsynth");
  socket = ws;
  ws.onopen = () => { ws.send("h " + token); };
  ws.onmessage = (e) => {
    const f = String(e.data).split(" ");
    if (f[0] === "ok") {
      paired = true;
      phone = Number(f[1]);
      const m = (f[2] || "linear").split(":");
      pitchMap = m[0] === "exp" ? { kind: "exp", octaves: Number(m[1]), centre: m.length > 2 ? Number(m[2]) : 1 } : { kind: "linear", octaves: 2 };
      toneNote = f.length > 3 ? Number(f[3]) : 69;
      sendsForce = f.length > 4 && f[4] === "timbre";
      guides = [];
      message.hidden = true;
      requestWakeLock();
      redrawPad();
    } else if (f[0] === "guides") {
      guides = f.slice(1).map((field) => {
        const [x, r, degree, label, name] = field.split(":");
        return { x: Number(x), ratio: Number(r), degree: Number(degree), label: label, name: name || label };
      });
      redrawPad();
    } else if (f[0] === "P") {
      const sent = Number(f[1]);
      rtt = performance.now() - sent;
      const counts = Number(f[2]) !== xruns || Number(f[3]) !== voices;
      xruns = Number(f[2]);
      voices = Number(f[3]);
      heard(sent, f[4] || "-");
      // The counts show at once when they change; the round trip by the status timer.
      if (counts) showStatus(); else statusStale = true;
      return;
    }
    showStatus();
  };
  ws.onclose = (e) => {
    if (socket !== ws) return;
    socket = null;
    paired = false;
    touches.clear();
    pendingMoves.clear();
    sustained = false; sustainPointer = null; sustainButton.className = "";
    redrawTouches();
    if (e.code === 4001) {
      stopped = true;
      showMessage(e.reason || "wrong pairing token");
    } else if (e.reason) {
      showMessage(e.reason + " — reconnecting");
    }
    showStatus();
    setTimeout(connect, e.code === 4004 ? 3000 : 1000);
  };
}

// A pong's list of the fingers that sound (`ID:CENTS,…` or `-`), for the ping sent at
// `sent`: a finger down since then is not judged by it.
function heard(sent, list) {
  const sounding = new Map();
  if (list !== "-") for (const item of list.split(",")) { const [id, c] = item.split(":"); sounding.set(Number(id), Number(c)); }
  let changed = false;
  for (const [id, t] of touches) {
    if (t.since > sent) continue;
    const on = sounding.has(id), cents = on ? sounding.get(id) : 0;
    if (on !== t.sounding || cents !== t.cents || !t.heard) { t.sounding = on; t.cents = cents; t.heard = true; changed = true; }
  }
  if (changed) redrawTouches();
}

function send(line) {
  if (socket && paired && socket.readyState === WebSocket.OPEN) socket.send(line);
}

// Moves are coalesced per touch: while the socket still holds unsent bytes, a newer
// move replaces the older one of the same finger.
function flushMoves(extra) {
  if (flushTimer !== null) { clearTimeout(flushTimer); flushTimer = null; }
  const lines = [...pendingMoves.values()];
  if (extra) lines.push(extra);
  if (lines.length === 0) return;
  if (!extra && socket && socket.bufferedAmount > 0) {
    flushTimer = setTimeout(() => flushMoves(null), 4);
    return;
  }
  pendingMoves.clear();
  // At most 1 KiB per message: 8 entries of at most two lines (a move and its `f`) of
  // ≤ 48 bytes each.
  for (let i = 0; i < lines.length; i += 8) send(lines.slice(i, i + 8).join("\n"));
}

function padPoint(e) {
  const r = padRect;
  return {
    x: clamp((e.clientX - r.left) / r.width, 0, 1),
    y: clamp(1 - (e.clientY - r.top) / r.height, 0, 1),
  };
}

function line(kind, id, p) {
  return kind + " " + id + " " + num(p.x) + " " + num(p.y) + " " + num(performance.now());
}

// A finger's second dimension, 0…1, for the voice's timbre (`f ID VALUE`): the pointer's
// pressure where the browser measures one (neither 0 nor the 0.5 it gives without), else
// its contact size (width/height, CSS px: 4…64 px → 0…1); null when it gives neither.
function dimension(e) {
  if (e.pressure > 0 && e.pressure !== 0.5) return clamp(e.pressure, 0, 1);
  const size = Math.max(e.width || 1, e.height || 1);
  return size > 1 ? clamp((size - 4) / 60, 0, 1) : null;
}
// The `f` line for touch t when its dimension moved by 1/256 or more since the last sent.
// Only when the instrument follows timbres (its `ok` said so); `carry`: the move this one
// replaces (unsent) had an `f`, so this one has it too.
let sendsForce = false;
function forceLine(id, t, e, carry) {
  const d = sendsForce ? dimension(e) : null;
  if (d === null || (!carry && t.force !== undefined && Math.abs(d - t.force) < 1 / 256)) return "";
  t.force = d;
  return "\nf " + id + " " + num(d);
}

pad.addEventListener("pointerdown", (e) => {
  e.preventDefault();
  try { pad.setPointerCapture(e.pointerId); } catch (_) { /* synthetic pointers */ }
  const p = padPoint(e);
  const t = { x: p.x, y: p.y, order: ++downs, since: performance.now(), sounding: true, cents: 0, heard: false };
  touches.set(e.pointerId, t);
  pendingMoves.delete(e.pointerId);
  flushMoves(line("d", e.pointerId, p) + forceLine(e.pointerId, t, e, true));   // the message first, the drawing at the next frame
  send("p " + num(performance.now()));   // its answer gives the pitch the finger sounds at
  redrawTouches();
});
pad.addEventListener("pointermove", (e) => {
  const t = touches.get(e.pointerId);
  if (!t) return;
  e.preventDefault();
  const p = padPoint(e);
  t.x = p.x; t.y = p.y;
  // A finger the instrument ended starts again with this move (and gets a new place).
  if (!t.sounding) { t.sounding = true; t.cents = 0; t.heard = false; t.since = performance.now(); t.order = ++downs; }
  const replaced = pendingMoves.get(e.pointerId);
  pendingMoves.set(e.pointerId, line("m", e.pointerId, p) + forceLine(e.pointerId, t, e, replaced !== undefined && replaced.includes("\nf ")));
  flushMoves(null);
  redrawTouches();
});
function lift(e) {
  if (!touches.has(e.pointerId)) return;
  const p = padPoint(e);
  touches.delete(e.pointerId);
  pendingMoves.delete(e.pointerId);
  flushMoves(line("u", e.pointerId, p));
  redrawTouches();
}
pad.addEventListener("pointerup", lift);
pad.addEventListener("pointercancel", lift);
for (const t of ["contextmenu", "touchstart", "gesturestart"]) {
  pad.addEventListener(t, (e) => e.preventDefault(), { passive: false });
}

// ---- sustain: held while a finger (or the mouse) is on the button ----
let sustained = false;
let sustainPointer = null;
function setSustain(on) {
  if (on === sustained) return;
  sustained = on;
  sustainButton.className = on ? "on" : "";
  send(on ? "s 1" : "s 0");
}
sustainButton.addEventListener("pointerdown", (e) => {
  e.preventDefault();
  try { sustainButton.setPointerCapture(e.pointerId); } catch (_) { /* synthetic pointers */ }
  sustainPointer = e.pointerId;
  setSustain(true);
});
function sustainUp(e) {
  if (e.pointerId !== sustainPointer) return;
  sustainPointer = null;
  setSustain(false);
}
sustainButton.addEventListener("pointerup", sustainUp);
sustainButton.addEventListener("pointercancel", sustainUp);
for (const t of ["contextmenu", "touchstart"]) {
  sustainButton.addEventListener(t, (e) => e.preventDefault(), { passive: false });
}

// ---- panic: every touch of every source ends (the instrument's, not only this page's) ----
panicButton.addEventListener("pointerdown", (e) => {
  e.preventDefault();
  setSustain(false);
  send("x");
  showMessage("panic: every touch ended");
  setTimeout(() => { if (message.textContent === "panic: every touch ended") message.hidden = true; }, 2000);
});
for (const t of ["contextmenu", "touchstart"]) {
  panicButton.addEventListener(t, (e) => e.preventDefault(), { passive: false });
}

// ---- tilt: portrait uses gamma, landscape beta (by the screen's angle); ±45° → ±1 ----
let lastTiltSent = 0, tiltTimer = null;
function onOrientation(e) {
  if (e.gamma === null && e.beta === null) return;
  tiltButton.hidden = true;
  const angle = (screen.orientation && screen.orientation.angle) || window.orientation || 0;
  let degrees;
  switch ((angle + 360) % 360) {
    case 90: degrees = e.beta; break;
    case 270: degrees = -e.beta; break;
    case 180: degrees = -e.gamma; break;
    default: degrees = e.gamma;
  }
  tilt = clamp(degrees / 45, -1, 1);
  // At most 60 a second: the latest value goes at the next slot.
  const wait = 1000 / 60 - (performance.now() - lastTiltSent);
  if (wait <= 0) sendTilt();
  else if (tiltTimer === null) tiltTimer = setTimeout(sendTilt, wait);
}
function sendTilt() {
  tiltTimer = null;
  lastTiltSent = performance.now();
  send("t " + num(tilt));
  statusStale = true;
}
// Listen always; where the browser has requestPermission (iOS Safari; Chromium too),
// show the button until the first reading arrives: iOS sends none before a tap grants it.
window.addEventListener("deviceorientation", onOrientation);
if (typeof DeviceOrientationEvent !== "undefined" && typeof DeviceOrientationEvent.requestPermission === "function") {
  tiltButton.hidden = false;
  tiltButton.addEventListener("click", async () => {
    try {
      const answer = await DeviceOrientationEvent.requestPermission();
      if (answer === "granted") tiltButton.hidden = true;
      else showMessage("tilt: permission " + answer);
    } catch (err) { showMessage("tilt: " + err); }
  });
}

// ---- wake lock, status, drawing ----
let wakeLock = null;
async function requestWakeLock() {
  try { if (navigator.wakeLock && !wakeLock) wakeLock = await navigator.wakeLock.request("screen"); } catch (_) { /* not granted */ }
  if (wakeLock) wakeLock.addEventListener("release", () => { wakeLock = null; });
}
document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible" && paired) requestWakeLock(); });

function showMessage(text) { message.textContent = text; message.hidden = false; }

// The status line's round trip and tilt are shown once a second, not at each ping's
// answer or tilt reading: each new text costs the page a layout and a frame, and a frame
// being made when a finger lands delays its touch. A change of the connection, the xruns
// or the voices shows at once (at the answer that brings it).
let statusStale = false;
function showStatus() {
  statusStale = false;
  const parts = [paired ? "connected (phone " + phone + ")" : "not connected"];
  if (paired && rtt !== null) parts.push("rtt " + rtt.toFixed(1) + " ms");
  if (paired) parts.push(xruns + " xruns", voices + " voices");
  if (tilt !== null) parts.push("tilt " + tilt.toFixed(2));
  const text = parts.join(" · "), className = paired ? "" : "off";
  if (statusLine.textContent !== text) statusLine.textContent = text;
  if (statusLine.className !== className) statusLine.className = className;
}
setInterval(() => { if (statusStale) showStatus(); }, 1000);

// The pad is drawn in two layers, as a low-latency touch app should be: the guides as
// still vector shapes (SVG), made again only when the size or the scale changes; each touch
// an element of its own (a composited layer), moved with `transform`, its label rewritten
// only when its text changes. A touch then costs the phone's frame a few small layers, not
// a full-screen redraw (a canvas in the page is even copied to the compositor at every
// frame, drawn or not), and all drawing waits for the next frame (requestAnimationFrame):
// the handlers only send the message and note what changed.
const TOUCH_RADIUS = 36;
const SVG = "http://www.w3.org/2000/svg";
let padRect = pad.getBoundingClientRect();   // the pad's place, read again when its size changes

function shape(name, attributes, text) {
  const e = document.createElementNS(SVG, name);
  for (const k in attributes) e.setAttribute(k, attributes[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Boxes in pad pixels ({l, t, r, b}) that labels keep clear of: the controls over the
// pad (sustain, the tilt button when shown) and the status line, with a 4 px margin.
// Read when the pad is drawn (its size changed), not at every frame.
let obstacles = [];
function box(l, t, r, b) { return { l, t, r, b }; }
function overlaps(a, b) { return a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b; }
function free(candidate, taken) { return !obstacles.some((o) => overlaps(candidate, o)) && !taken.some((o) => overlaps(candidate, o)); }
function readObstacles() {
  obstacles = [sustainButton, panicButton, tiltButton, statusLine].filter((e) => !e.hidden).map((e) => {
    const r = e.getBoundingClientRect();
    return box(r.left - padRect.left - 4, r.top - padRect.top - 4, r.right - padRect.left + 4, r.bottom - padRect.top + 4);
  });
}

// The guides' labels along the bottom, in two rows, where each is clear of the others
// and of the controls: the roots first (named with their octave, "A4"), then the
// natural notes, then the rest, each group left to right; what finds no room is left out.
const GUIDE_ASCENT = 10, GUIDE_DESCENT = 3, GUIDE_ROWS = [8, 26];
// The guide labels drawn, {el, box, hidden}: box their glyphs' extent with 3 px to spare
// (a touch's label keeps clear of them where it can, and hides those it covers).
let guideLabelBoxes = [];
function guideLabel(x, y, width, text) {
  const el = shape("text", { x: x, y: y, class: "guide-label" }, text);
  guideLabelBoxes.push({ el, box: box(x - 2, y - GUIDE_ASCENT - 3, x + width + 2, y + GUIDE_DESCENT + 3), hidden: false });
  return el;
}
function guideLabels(w, h, items) {
  const rank = (i) => (i.root ? 0 : i.text.includes("#") ? 2 : 1);
  const taken = [], out = [];
  for (const i of [...items].sort((a, b) => rank(a) - rank(b) || a.px - b.px)) {
    const width = measure.measureText(i.text).width, left = Math.max(2, Math.min(i.px - width / 2, w - width - 2));
    for (const fromBottom of GUIDE_ROWS) {
      const y = h - fromBottom, b = box(left - 2, y - GUIDE_ASCENT, left + width + 2, y + GUIDE_DESCENT);
      if (!free(b, taken)) continue;
      taken.push(b);
      out.push(guideLabel(left, y, width, i.text));
      break;
    }
  }
  return out;
}

function drawPad() {
  padRect = pad.getBoundingClientRect();
  readObstacles();
  const w = padRect.width, h = padRect.height;
  const parts = [];
  const vertical = (x, root) => shape("line", { x1: x, y1: 0, x2: x, y2: h, class: root ? "guide root" : "guide" });
  // Guides, as on the terminal pad: with a scale, a line per step (brighter on the
  // roots) named where the name fits; without, ratio lines at x = ¼, ½, ¾ with the
  // ratio and its nearest note. Gain ½.
  measure.font = GUIDE_FONT;
  guideLabelBoxes = [];
  const labels = [];
  if (guides.length > 0) {
    for (const s of guides) {
      const px = Math.round(s.x * w) + 0.5;   // on a pixel: a crisp 1-px line
      parts.push(vertical(px, s.degree === 0));
      labels.push({ px, text: s.degree === 0 ? s.name : s.label, root: s.degree === 0 });
    }
  } else {
    for (const x of [0.25, 0.5, 0.75]) {
      const px = Math.round(x * w) + 0.5;
      parts.push(vertical(px, false));
      labels.push({ px, text: "×" + (Math.round(ratio(x) * 100) / 100) + " " + noteName(toneNote + 12 * Math.log2(ratio(x))), root: x === 0.5 });
    }
  }
  parts.push(...guideLabels(w, h, labels));
  const mid = Math.round(h / 2) + 0.5;
  parts.push(shape("line", { x1: 0, y1: mid, x2: w, y2: mid, class: "guide" }));
  parts.push(guideLabel(4, mid - 4, measure.measureText("g 0.5").width, "g 0.5"));
  pad.replaceChildren(...parts);
}

// Each touch under its finger, with the pitch it sounds at (ratio and note, or step and
// cents) and gain; a finger the instrument ended (its phone was silent) is drawn grey,
// "silent", until it moves. The elements are kept for the next finger; a lifted touch's
// are hidden.
const marks = new Map();      // pointerId → {dot, label, text, shown}
const spareMarks = [];
function markFor(id) {
  let m = marks.get(id);
  if (m) return m;
  m = spareMarks.pop();
  if (!m) {
    const dot = document.createElement("div");
    dot.className = "touch";
    const label = document.createElement("div");
    label.className = "touch-label";
    touchLayer.append(dot, label);
    m = { dot, label, text: "" };
  }
  m.dot.style.visibility = m.label.style.visibility = "visible";
  marks.set(id, m);
  return m;
}
const LABEL_HEIGHT = 18;
function placeTouches() {
  const w = padRect.width, h = padRect.height;
  for (const [id, m] of marks) {
    if (touches.has(id)) continue;
    m.dot.style.visibility = m.label.style.visibility = "hidden";   // no layout: kept for the next finger
    marks.delete(id);
    spareMarks.push(m);
  }
  // Labels newest finger first: above it, else below, left, right, each kept on the pad
  // and clear of the controls and of the labels placed; none of these: not shown (the
  // finger's dot still is). A place clear of the guides' labels is taken first; where
  // there is none, the guide labels under the touch's are hidden while it is there. A
  // finger whose pitch the instrument has not answered yet (`heard`) shows no label.
  const taken = [];
  for (const [id, p] of [...touches].sort((a, b) => b[1].order - a[1].order)) {
    const m = markFor(id);
    const cx = p.x * w, cy = (1 - p.y) * h;
    m.dot.style.transform = "translate(" + (cx - TOUCH_RADIUS) + "px," + (cy - TOUCH_RADIUS) + "px)";
    const silent = !p.sounding;
    if (m.dot.className !== (silent ? "touch silent" : "touch")) m.dot.className = silent ? "touch silent" : "touch";
    if (!silent && !p.heard) {
      if (m.label.style.visibility !== "hidden") m.label.style.visibility = "hidden";
      continue;
    }
    const text = silent ? "silent: move to play" : pitchText(p.x, p.cents) + " g" + p.y.toFixed(2);
    if (m.text !== text) {
      measure.font = LABEL_FONT;
      m.label.textContent = text; m.text = text; m.width = measure.measureText(text).width;
    }
    const lw = m.width, gap = TOUCH_RADIUS + 10;
    const spots = [[cx - lw / 2, cy - gap - LABEL_HEIGHT], [cx - lw / 2, cy + gap], [cx - gap - lw, cy - LABEL_HEIGHT / 2], [cx + gap, cy - LABEL_HEIGHT / 2]]
      .map(([x, y]) => [clamp(x, 4, w - lw - 4), clamp(y, 4, h - LABEL_HEIGHT - 4)]);
    const fits = ([x, y]) => free(box(x, y, x + lw, y + LABEL_HEIGHT), taken);
    const clearOfGuides = ([x, y]) => !guideLabelBoxes.some((g) => overlaps(g.box, box(x - 2, y, x + lw + 2, y + LABEL_HEIGHT)));
    const spot = spots.find((s) => fits(s) && clearOfGuides(s)) || spots.find(fits);
    const shown = spot !== undefined ? "visible" : "hidden";
    if (m.label.style.visibility !== shown) m.label.style.visibility = shown;
    if (!spot) continue;
    taken.push(box(spot[0] - 2, spot[1], spot[0] + lw + 2, spot[1] + LABEL_HEIGHT));
    m.label.style.transform = "translate(" + spot[0] + "px," + spot[1] + "px)";
  }
  for (const g of guideLabelBoxes) {
    const under = taken.some((t) => overlaps(g.box, t));
    if (under !== g.hidden) { g.hidden = under; g.el.style.visibility = under ? "hidden" : ""; }
  }
}

// Drawn only when something changed (a touch, the size, the pitch map), at the next
// frame, at most once a frame: an idle pad costs the phone nothing.
let framePending = false, padStale = true, touchesStale = true;
function frame() {
  framePending = false;
  if (padStale) { padStale = false; drawPad(); touchesStale = true; }
  if (touchesStale) { touchesStale = false; placeTouches(); }
}
function requestFrame() {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(frame);
}
function redrawPad() { padStale = true; requestFrame(); }
function redrawTouches() { touchesStale = true; requestFrame(); }
window.addEventListener("resize", redrawPad);

setInterval(() => { if (paired) send("p " + num(performance.now())); }, 200);
showStatus();
redrawPad();
if (token) connect();
else { stopped = true; showMessage("no pairing token: open the address bendsynth printed, with its #token"); }
