// bendsynth's web pad: every finger a touch, tilt from the phone's orientation, sent to
// the instrument over a WebSocket (protocol: docs/WEB.md). No framework, no CDN.
"use strict";

const pad = document.getElementById("pad");
const statusLine = document.getElementById("status");
const tiltButton = document.getElementById("tilt");
const sustainButton = document.getElementById("sustain");
const message = document.getElementById("message");
const g = pad.getContext("2d");
const token = location.hash.slice(1);

let socket = null;
let paired = false;
let stopped = false;          // a wrong token: no reconnecting
let pitchMap = { kind: "linear", octaves: 2 };
let guides = [];              // the scale's steps on the pad (the `guides` message): {x, ratio, degree, label}
let rtt = null, xruns = 0, voices = 0, phone = 0;
let tilt = null;
const touches = new Map();    // pointerId → {x, y}
const pendingMoves = new Map(); // pointerId → line, sent when the socket's buffer is empty
let flushTimer = null;

// ---- the instrument's mapping (BendControl's PitchMap and gain) ----
function ratio(x) {
  if (pitchMap.kind === "exp") return Math.min(pitchMap.centre * Math.pow(2, (x - 0.5) * pitchMap.octaves), 4);
  return 2 * x;
}
// A touch's pitch as the terminal pad shows it: with a scale, its nearest step and the
// offset in cents ("A#+30¢"); without, its ratio ("×1.08").
function pitchText(x) {
  const r = ratio(x);
  if (guides.length === 0 || !(r > 0)) return "×" + r.toFixed(2);
  let best = null, offset = 0;
  for (const s of guides) {
    const c = 1200 * Math.log2(r / s.ratio);
    if (best === null || Math.abs(c) < Math.abs(offset)) { best = s; offset = c; }
  }
  const c = Math.round(offset);
  return best.label + (c >= 0 ? "+" : "") + c + "¢";
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
      guides = [];
      message.hidden = true;
      requestWakeLock();
      redraw();
    } else if (f[0] === "guides") {
      guides = f.slice(1).map((field) => {
        const [x, r, degree, label] = field.split(":");
        return { x: Number(x), ratio: Number(r), degree: Number(degree), label: label };
      });
      redraw();
    } else if (f[0] === "P") {
      rtt = performance.now() - Number(f[1]);
      xruns = Number(f[2]);
      voices = Number(f[3]);
      statusStale = true;       // shown by the status timer, not at each answer
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
    redraw();
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
  // At most 1 KiB per message: 16 lines of ≤ 48 bytes each.
  for (let i = 0; i < lines.length; i += 16) send(lines.slice(i, i + 16).join("\n"));
}

function padPoint(e) {
  const r = pad.getBoundingClientRect();
  return {
    x: clamp((e.clientX - r.left) / r.width, 0, 1),
    y: clamp(1 - (e.clientY - r.top) / r.height, 0, 1),
  };
}

function line(kind, id, p) {
  return kind + " " + id + " " + num(p.x) + " " + num(p.y) + " " + num(performance.now());
}

pad.addEventListener("pointerdown", (e) => {
  e.preventDefault();
  try { pad.setPointerCapture(e.pointerId); } catch (_) { /* synthetic pointers */ }
  const p = padPoint(e);
  touches.set(e.pointerId, p);
  pendingMoves.delete(e.pointerId);
  flushMoves(line("d", e.pointerId, p));
  redraw();
});
pad.addEventListener("pointermove", (e) => {
  if (!touches.has(e.pointerId)) return;
  e.preventDefault();
  const p = padPoint(e);
  touches.set(e.pointerId, p);
  pendingMoves.set(e.pointerId, line("m", e.pointerId, p));
  flushMoves(null);
  redraw();
});
function lift(e) {
  if (!touches.has(e.pointerId)) return;
  const p = padPoint(e);
  touches.delete(e.pointerId);
  pendingMoves.delete(e.pointerId);
  flushMoves(line("u", e.pointerId, p));
  redraw();
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

// The status line's measurements (round trip, xruns, voices, tilt) are shown once a second,
// not at each ping's answer or tilt reading: each new text costs the page a layout and a
// frame, and a frame being made when a finger lands delays its touch. A change of the
// connection shows at once.
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

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = pad.clientWidth, h = pad.clientHeight;
  if (pad.width !== Math.round(w * dpr) || pad.height !== Math.round(h * dpr)) {
    pad.width = Math.round(w * dpr);
    pad.height = Math.round(h * dpr);
  }
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = "#10141c";
  g.fillRect(0, 0, w, h);
  // Guides, as on the terminal pad: with a scale, a line per step (brighter on the
  // roots) named where the name fits; without, ratio lines at x = ¼, ½, ¾. Gain ½.
  g.strokeStyle = "#2a3344";
  g.fillStyle = "#6b7890";
  g.lineWidth = 1;
  g.font = "13px system-ui, sans-serif";
  if (guides.length > 0) {
    let labelEnd = -Infinity;
    for (const s of guides) {
      const px = Math.round(s.x * w) + 0.5;   // on a pixel: a crisp 1-px line
      g.strokeStyle = s.degree === 0 ? "#4a5a78" : "#2a3344";
      g.beginPath(); g.moveTo(px, 0); g.lineTo(px, h); g.stroke();
      const width = g.measureText(s.label).width;
      if (px - width / 2 > labelEnd + 4 && px + width / 2 < w) {
        g.fillText(s.label, px - width / 2, h - 8);
        labelEnd = px + width / 2;
      }
    }
    g.strokeStyle = "#2a3344";
  } else {
    for (const x of [0.25, 0.5, 0.75]) {
      g.beginPath(); g.moveTo(x * w, 0); g.lineTo(x * w, h); g.stroke();
      g.fillText("×" + ratio(x).toFixed(2), x * w + 4, h - 8);
    }
  }
  g.beginPath(); g.moveTo(0, h / 2); g.lineTo(w, h / 2); g.stroke();
  g.fillText("g 0.5", 4, h / 2 - 4);
  // Each touch under its finger, with its pitch ratio and gain.
  for (const [, p] of touches) {
    const cx = p.x * w, cy = (1 - p.y) * h;
    g.fillStyle = "rgba(255, 170, 40, 0.85)";
    g.beginPath(); g.arc(cx, cy, 36, 0, 2 * Math.PI); g.fill();
    g.fillStyle = "#e8ecf4";
    g.font = "15px system-ui, sans-serif";
    // The label stays on the pad at its edges (a touch at x = 0 or 1, or at the top).
    const label = pitchText(p.x) + " g" + p.y.toFixed(2);
    const width = g.measureText(label).width;
    g.fillText(label, clamp(cx - width / 2, 4, w - width - 4), Math.max(cy - 46, 40));
  }
}

// Drawn only when something changed (a touch, the size, the pitch map): an idle pad
// costs the phone nothing.
let drawPending = false;
function redraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => { drawPending = false; draw(); });
}
window.addEventListener("resize", redraw);

setInterval(() => { if (paired) send("p " + num(performance.now())); }, 200);
showStatus();
redraw();
if (token) connect();
else { stopped = true; showMessage("no pairing token: open the address bendsynth printed, with its #token"); }
