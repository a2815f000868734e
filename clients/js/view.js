// The live view served by `multitouchctl view` (and by `multitouchctl bridge` at /view.html): live
// touches with ids and trails, the map transformed by the published matrix, finger count, segment
// mode, velocities and the daemon's latency histogram. Everything it shows is also on
// `window.multitouchView`, which the headless-Chromium test (checks/web/browser-check.py) reads.
import { MultitouchClient, IDENTITY, touchMillimeters } from "./multitouch.js";

const TRAIL_POINTS = 400;      // points kept per touch trail
const ENDED_TRAIL_MS = 3000;   // an ended touch's trail fades out over this long (after it was drawn)
const GRID_STEP_FRACTION = 10; // grid lines per device width
const COLORS = ["#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
  "#bcf60c", "#fabebe", "#008080", "#e6beff"];

// Predicted touches (docs/PREDICTION.md): the view asks for this horizon (`?predict=MS`, 0: none) and
// draws each live finger's predicted position as a ring joined to the finger.
const PREDICT_MS = Math.max(0, Math.min(50, Number(new URLSearchParams(location.search).get("predict") ?? 16) || 0));

const view = (window.multitouchView = {
  connected: false,
  predictMs: PREDICT_MS,   // the horizon asked for (0: none; null when the daemon refused it)
  predictionsDrawn: 0,     // predicted-position rings drawn (one per live touch per rendered frame)
  closeReason: null,
  device: null,            // the device shown: {id, name, width, height, units}
  messages: 0,
  received: [],            // the first 10,000 messages as they arrived (the test checks them against the schema)
  touchFrames: 0,
  touchesDrawn: 0,         // distinct touch ids drawn at least once
  drawnTouchIds: [],
  activeTouches: 0,
  fingers: 0,
  maxFingers: 0,
  mode: null,              // "pan" | "pinchRotate" | null between segments
  segmentPhase: null,
  velocity: null,          // {translation:[vx,vy], scale, rotation} of the last gesture update
  gridTransform: [...IDENTITY], // the matrix the grid and map were last drawn with
  gridLinesDrawn: 0,
  mapDrawn: false,
  framesRendered: 0,
  latency: null,           // the `latency` object of the last stats reply
  histogramBars: 0,
  replayEnded: false,      // the daemon removed the device with reason "end of recording"
  ended: false,            // ... and the page has drawn everything after that
  dropped: 0,
  errors: [],
});

const client = new MultitouchClient();
const canvas = document.getElementById("surface");
const ctx = canvas.getContext("2d");
const mapImage = new Image();
mapImage.src = "map.svg";
const trails = new Map();  // touch id -> {points, color, phase, x, y, endedAt, drawn}
const drawnIds = new Set();

const $ = (id) => document.getElementById(id);
const fmt = (v, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : "–");

function showDevice(id) {
  const d = client.devices.get(id);
  if (!d) return;
  view.device = { id: d.id, name: d.name, width: d.width, height: d.height, units: d.units };
  view.gridTransform = client.matrices.get(d.id) || [...IDENTITY];
}

client.addEventListener("open", () => {
  view.connected = true;
  const plain = () => client.subscribe().catch((e) => view.errors.push(`subscribe: ${e.message}`));
  if (PREDICT_MS > 0) {
    // The daemon predicts one horizon at a time: if another client holds a different one, show no predictions.
    client.subscribe({ predictMs: PREDICT_MS }).catch(() => {
      view.predictMs = null;
      plain();
    });
  } else {
    plain();
  }
});
client.addEventListener("close", (e) => {
  view.connected = false;
  view.closeReason = `${e.detail.code} ${e.detail.reason}`;
});
client.addEventListener("message", (e) => {
  view.messages += 1;
  if (view.received.length < 10000) view.received.push(e.detail);
});
client.addEventListener("hello", () => {
  if (client.devices.size > 0) showDevice(client.devices.keys().next().value);
});
client.addEventListener("deviceAdded", (e) => {
  // A looping replay adds a fresh device each pass: follow the newest.
  showDevice(e.detail.device.id);
  view.replayEnded = false;
  view.ended = false;
});
client.addEventListener("deviceRemoved", (e) => {
  if (view.device && e.detail.device === view.device.id && e.detail.reason === "end of recording") {
    view.replayEnded = true;
  }
});
client.addEventListener("touches", (e) => {
  const m = e.detail;
  if (!view.device || m.device !== view.device.id) showDevice(m.device);
  view.touchFrames += 1;
  view.fingers = m.fingers;
  view.maxFingers = Math.max(view.maxFingers, m.fingers);
  let active = 0;
  for (const t of m.touches) {
    let trail = trails.get(t.id);
    if (!trail) {
      trail = { points: [], color: COLORS[t.id % COLORS.length], endedAt: null, drawn: false };
      trails.set(t.id, trail);
    }
    trail.phase = t.phase;
    trail.x = t.x;
    trail.y = t.y;
    trail.mm = touchMillimeters(t);
    trail.predicted = Array.isArray(t.predicted) ? t.predicted : null;
    const last = trail.points[trail.points.length - 1];
    if (!last || last[0] !== t.x || last[1] !== t.y) trail.points.push([t.x, t.y]);
    if (trail.points.length > TRAIL_POINTS) trail.points.shift();
    if (t.phase === "ended" || t.phase === "cancelled") trail.endedAt = performance.now();
    else active += 1;
  }
  view.activeTouches = active;
});
client.addEventListener("gesture", (e) => {
  const g = e.detail;
  view.mode = g.phase === "ended" || g.phase === "cancelled" ? null : g.mode;
  view.segmentPhase = g.phase;
  view.velocity = g.velocity;
});
client.addEventListener("session", (e) => {
  if (e.detail.phase !== "began") view.mode = null;
});
client.addEventListener("matrix", (e) => {
  if (view.device && e.detail.device === view.device.id) view.gridTransform = e.detail.matrix;
});
client.addEventListener("dropped", (e) => { view.dropped += e.detail.count; });
client.addEventListener("error", (e) => { view.errors.push(`${e.detail.code}: ${e.detail.message}`); });

// The latency histogram: the daemon's stats, once a second.
setInterval(async () => {
  if (!client.connected) return;
  try {
    const stats = await client.stats();
    view.latency = stats.latency;
    drawHistogram(stats.latency);
  } catch (e) {
    view.errors.push(`stats: ${e.message}`);
  }
}, 1000);

function drawHistogram(latency) {
  const c = $("latency");
  const g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  const buckets = (latency && latency.buckets) || [];
  view.histogramBars = buckets.length;
  if (buckets.length === 0) {
    $("latencyText").textContent = "no batches measured yet";
    return;
  }
  const max = Math.max(...buckets.map((b) => b.count));
  const width = c.width / buckets.length;
  g.font = "10px monospace";
  buckets.forEach((b, i) => {
    const h = (c.height - 24) * (b.count / max);
    g.fillStyle = "#4a90d9";
    g.fillRect(i * width + 2, c.height - 14 - h, width - 4, h);
    g.fillStyle = "#ccd";
    g.fillText(`<${b.lt}`, i * width + 2, c.height - 2);
    g.fillText(String(b.count), i * width + 2, c.height - 16 - h);
  });
  const recent = latency.recent || {};
  $("latencyText").textContent =
    `${latency.count} batches (µs), max ${fmt(latency.max)}, p50 ${fmt(recent.p50)}, p99 ${fmt(recent.p99)}, deferred ${latency.deferred}`;
}

function render(now) {
  requestAnimationFrame(render);
  const dpr = window.devicePixelRatio || 1;
  const cssWidth = canvas.clientWidth;
  const cssHeight = canvas.clientHeight;
  if (canvas.width !== Math.round(cssWidth * dpr) || canvas.height !== Math.round(cssHeight * dpr)) {
    canvas.width = Math.round(cssWidth * dpr);
    canvas.height = Math.round(cssHeight * dpr);
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#15191e";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const d = view.device;
  const replayEndedBefore = view.replayEnded;
  if (!d) {
    status();
    return;
  }
  // Device space -> canvas: fit the published extent with a margin, keeping its aspect.
  const margin = 20 * dpr;
  const s = Math.min((canvas.width - 2 * margin) / d.width, (canvas.height - 2 * margin) / d.height);
  const ox = (canvas.width - d.width * s) / 2;
  const oy = (canvas.height - d.height * s) / 2;

  // The content (map and grid), drawn in device space through the published matrix.
  const m = view.gridTransform;
  ctx.save();
  ctx.beginPath();
  ctx.rect(ox, oy, d.width * s, d.height * s);
  ctx.clip();
  ctx.setTransform(s, 0, 0, s, ox, oy);
  ctx.transform(m[0], m[1], m[2], m[3], m[4], m[5]);
  if (mapImage.complete && mapImage.naturalWidth > 0) {
    ctx.globalAlpha = 0.55;
    ctx.drawImage(mapImage, 0, 0, d.width, d.height);
    ctx.globalAlpha = 1;
    view.mapDrawn = true;
  }
  const step = d.width / GRID_STEP_FRACTION;
  const scaleNow = Math.sqrt(Math.abs(m[0] * m[3] - m[1] * m[2])) || 1;
  ctx.lineWidth = 1 / (s * scaleNow);
  let lines = 0;
  for (let i = -GRID_STEP_FRACTION; i <= 2 * GRID_STEP_FRACTION; i++) {
    ctx.strokeStyle = i === 0 || i === GRID_STEP_FRACTION ? "#8fb3d9" : "#3d4a5a";
    ctx.beginPath();
    ctx.moveTo(i * step, -d.height);
    ctx.lineTo(i * step, 2 * d.height);
    ctx.moveTo(-d.width, i * step);
    ctx.lineTo(2 * d.width, i * step);
    ctx.stroke();
    lines += 2;
  }
  ctx.restore();
  view.gridLinesDrawn = lines;

  // The device outline.
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.strokeStyle = "#888";
  ctx.lineWidth = 1 * dpr;
  ctx.strokeRect(ox, oy, d.width * s, d.height * s);

  // Trails and touches, in device space (not transformed: they are where the fingers are).
  for (const [id, trail] of trails) {
    if (trail.endedAt !== null && trail.drawn && now - trail.endedAt > ENDED_TRAIL_MS) {
      trails.delete(id);
      continue;
    }
    const fade = trail.endedAt === null ? 1 : Math.max(0.15, 1 - (now - trail.endedAt) / ENDED_TRAIL_MS);
    ctx.globalAlpha = fade;
    ctx.strokeStyle = trail.color;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    trail.points.forEach(([x, y], i) => {
      const px = ox + x * s, py = oy + y * s;
      if (i === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
    });
    ctx.stroke();
    const px = ox + trail.x * s, py = oy + trail.y * s;
    ctx.fillStyle = trail.color;
    ctx.beginPath();
    ctx.arc(px, py, (trail.endedAt === null ? 14 : 7) * dpr, 0, 2 * Math.PI);
    ctx.fill();
    if (trail.endedAt === null && trail.predicted) {
      // Where the finger is predicted PREDICT_MS from now: a ring, joined to the finger.
      const qx = ox + trail.predicted[0] * s, qy = oy + trail.predicted[1] * s;
      ctx.strokeStyle = trail.color;
      ctx.lineWidth = 2 * dpr;
      ctx.beginPath();
      ctx.moveTo(px, py);
      ctx.lineTo(qx, qy);
      ctx.stroke();
      ctx.beginPath();
      ctx.arc(qx, qy, 9 * dpr, 0, 2 * Math.PI);
      ctx.stroke();
      view.predictionsDrawn += 1;
    }
    ctx.fillStyle = "#fff";
    ctx.font = `${12 * dpr}px monospace`;
    ctx.fillText(`#${id}`, px + 16 * dpr, py - 10 * dpr);
    ctx.globalAlpha = 1;
    if (!trail.drawn) {
      trail.drawn = true;
      drawnIds.add(id);
    }
  }
  view.touchesDrawn = drawnIds.size;
  view.drawnTouchIds = [...drawnIds].sort((a, b) => a - b);
  view.framesRendered += 1;
  // Everything received before the end of the recording has now been drawn.
  if (replayEndedBefore) view.ended = true;
  status();
}

function status() {
  const d = view.device;
  $("status").textContent = view.connected
    ? `${client.url}  device ${d ? `${d.id} "${d.name}" ${fmt(d.width)}×${fmt(d.height)} ${d.units}` : "(none yet)"}` +
      `  messages ${view.messages}  touches drawn ${view.touchesDrawn}${view.dropped ? `  DROPPED ${view.dropped}` : ""}` +
      `${view.replayEnded ? "  (recording ended)" : ""}`
    : `not connected${view.closeReason ? ` (${view.closeReason})` : ""}: reconnecting…`;
  $("fingers").textContent = String(view.fingers);
  $("mode").textContent = view.mode ? `${view.mode} (${view.segmentPhase})` : "–";
  const v = view.velocity;
  $("velocity").textContent = v ? `(${fmt(v.translation[0])}, ${fmt(v.translation[1])})/s` : "–";
  $("vscale").textContent = v ? fmt(v.scale, 3) : "–";
  $("vrotation").textContent = v ? `${fmt((v.rotation * 180) / Math.PI)}°` : "–";
  $("matrix").textContent = view.gridTransform.map((x) => fmt(x, 3)).join(" ");
  const live = [...trails.entries()].filter(([, t]) => t.endedAt === null);
  $("touches").textContent = live.length
    ? live.map(([id, t]) => `#${id} (${fmt(t.x)}, ${fmt(t.y)})${millimetersText(t)} ${t.phase}`).join("\n")
    : "none";
  $("touches").style.whiteSpace = "pre";
}

// On a device mapped to pixels, the touch's millimetres too (on a millimetre device they are x, y).
function millimetersText(t) {
  if (!view.device || view.device.units !== "pixels") return "";
  return ` = (${fmt(t.mm[0])}, ${fmt(t.mm[1])}) mm`;
}

requestAnimationFrame(render);
client.connect();
