// multitouch.js: a dependency-free ES module client for multitouchd through `multitouchctl bridge`
// (or `multitouchctl view`), for browsers and kiosk pages. The protocol is docs/PROTOCOL.md: every
// WebSocket text message is one protocol line, every request one JSON object.
//
//   import { MultitouchClient, cssMatrix } from "./multitouch.js";
//   const client = new MultitouchClient();              // ws://<this page's host>/ws
//   client.addEventListener("gesture", (e) => {
//     image.style.transform = cssMatrix(e.detail.matrix);
//   });
//   client.connect();
//   await client.subscribe({ streams: ["gestures", "devices"] });
//
// Events (CustomEvent, the message in `detail`): one per message type (`hello`, `touches`, `gesture`,
// `session`, `tap`, `doubleTap`, `longPress`, `transform`, `deviceAdded`, `deviceRemoved`, `dropped`,
// `error`, `stats`, `regions`, ...), `message` for every message, `matrix` when a device's cumulative
// matrix changes ({device, matrix}) or one of this client's regions' own matrix does ({device, region,
// matrix}), `open`, and `close` ({code, reason, willReconnect}), also when the bridge refused the
// WebSocket (a wrong token) and the runtime reported only an error (Node 20's WebSocket).
//
// Regions (docs/PROTOCOL.md "Touch routing"): `declareRegions(device, regions)` and
// `updateRegions(device, {regions, remove})`; routed messages carry `region` (and touches `role`, and
// `reason` when the daemon ended them), and a reconnect declares them again before it subscribes.

/**
 * The bridge WebSocket of the page that loaded this module (ws:, or wss: on https pages), with the
 * page's `?token=` forwarded: the bridge admits a WebSocket only with its token, in the query of the
 * URL it printed (never in a cookie, which the browser would send to every server of the host).
 */
export function defaultBridgeURL(location = globalThis.location) {
  if (!location || !location.host) return "ws://127.0.0.1:8080/ws";
  const token = new URLSearchParams(location.search || "").get("token");
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" +
    (token ? "?token=" + encodeURIComponent(token) : "");
}

/**
 * A touch's position in millimetres, [mmX, mmY]. Protocol 2 sends mmX/mmY only where they differ
 * from x/y (a touchscreen mapped to an output publishes pixels); elsewhere the published space is
 * millimetres and x/y are the millimetres.
 */
export function touchMillimeters(touch) {
  return [touch.mmX ?? touch.x, touch.mmY ?? touch.y];
}

/** The identity matrix [a, b, c, d, tx, ty]. */
export const IDENTITY = Object.freeze([1, 0, 0, 1, 0, 0]);

/**
 * Applies a protocol matrix [a, b, c, d, tx, ty] to a point [x, y]:
 * x' = a*x + c*y + tx, y' = b*x + d*y + ty (CGAffineTransform order, as the daemon publishes it).
 */
export function applyMatrix(m, [x, y]) {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** m1 after m2 (first m2, then m1), in the protocol's [a, b, c, d, tx, ty] form. */
export function concatMatrix(m1, m2) {
  return [
    m1[0] * m2[0] + m1[2] * m2[1],
    m1[1] * m2[0] + m1[3] * m2[1],
    m1[0] * m2[2] + m1[2] * m2[3],
    m1[1] * m2[2] + m1[3] * m2[3],
    m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
    m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
  ];
}

/** The inverse matrix, or null when it is singular. */
export function invertMatrix(m) {
  const det = m[0] * m[3] - m[1] * m[2];
  if (!Number.isFinite(det) || Math.abs(det) < 1e-12) return null;
  return [
    m[3] / det, -m[1] / det, -m[2] / det, m[0] / det,
    (m[2] * m[5] - m[3] * m[4]) / det, (m[1] * m[4] - m[0] * m[5]) / det,
  ];
}

/**
 * A CSS `transform` value for a protocol matrix. The matrix is in the device's published space;
 * `scale` maps that space onto the element's CSS pixels (element width / device width), so content
 * drawn in device units follows the fingers. Use with `transform-origin: 0 0`.
 */
export function cssMatrix(m, scale = 1) {
  // S * M * S^-1: only the translation changes units; the linear part is unit-free.
  const f = (v) => (Number.isFinite(v) ? +v.toFixed(6) : 0);
  return `matrix(${f(m[0])}, ${f(m[1])}, ${f(m[2])}, ${f(m[3])}, ${f(m[4] * scale)}, ${f(m[5] * scale)})`;
}

/** An error reply from the daemon (or a closed connection) for a request. */
export class RequestError extends Error {
  constructor(reply) {
    super(reply.message || reply.code || "request failed");
    this.name = "RequestError";
    this.code = reply.code;
    this.reply = reply;
  }
}

const REPLY_TYPES = new Set(["subscribed", "unsubscribed", "pong", "stats", "transform", "regions", "recognized", "regionList", "error"]);

/** What a refused handshake (HTTP 401/403: no or wrong token, a refused origin; 503: the bridge is
 *  full) looks like to a script: code 1006 with no reason, or only an error event. */
const REFUSED = "the bridge did not accept the WebSocket (no or wrong token? open the URL the bridge printed, with ?token=)";

/**
 * One connection to multitouchd through the bridge. Reconnects after a lost connection (with growing
 * delays up to `maxReconnectDelayMs`) and then repeats the last subscription, so a page survives a
 * daemon restart. Requests return promises resolved by the reply with the same `id`.
 */
export class MultitouchClient extends EventTarget {
  constructor(url = defaultBridgeURL(), { reconnect = true, maxReconnectDelayMs = 5000, WebSocketClass } = {}) {
    super();
    this.url = url;
    this.reconnect = reconnect;
    this.maxReconnectDelayMs = maxReconnectDelayMs;
    this.WebSocketClass = WebSocketClass || globalThis.WebSocket;
    /** Devices by id, from `hello`, `deviceAdded` and `deviceRemoved`. */
    this.devices = new Map();
    /** The latest cumulative matrix per device id (from gesture, doubleTap and transform messages). */
    this.matrices = new Map();
    /** The latest matrix of each of this client's regions with a gesture session, by "device/region". */
    this.regionMatrices = new Map();
    /** This client's regions in force, by device id (region objects as declared; a reconnect declares them again). */
    this.regions = new Map();
    /** The `hello` of the current connection, or null. */
    this.hello = null;
    this._socket = null;
    this._nextId = 1;
    this._pending = new Map();
    this._subscription = null;
    this._closedByUser = false;
    this._delay = 250;
    this._timer = null;
  }

  /** True while the WebSocket is open. */
  get connected() {
    return this._socket !== null && this._socket.readyState === 1;
  }

  /** Opens the connection (again after `close`). */
  connect() {
    this._closedByUser = false;
    if (this._socket) return;
    const socket = new this.WebSocketClass(this.url);
    this._socket = socket;
    socket.onopen = () => {
      this._delay = 250;
      this._emit("open", { url: this.url });
      // Regions first, then the subscription: the daemon handles one connection's requests in order,
      // so the regions are in force for the first touch the subscription delivers.
      for (const [device, regions] of this.regions) {
        this._send({ type: "declareRegions", device, regions }).catch((error) => {
          this.regions.delete(device);
          this._emit("error", { type: "error", code: error.code, message: `regions on device ${device} not restored: ${error.message}`, fatal: false });
        });
      }
      if (this._subscription) this._send({ type: "subscribe", ...this._subscription }).catch(() => {});
    };
    socket.onmessage = (event) => this._receive(event.data);
    let opened = false;
    let closed = false;
    socket.addEventListener("open", () => { opened = true; });
    // Browsers follow a refused handshake's error with a close (code 1006); Node 20's WebSocket fires
    // only the error. Either way the client reports it once, as a close, and reconnects if it may.
    socket.onerror = () => {
      if (opened || closed) return;
      closed = true;
      this._closed(socket, { code: 1006, reason: "" }, opened);
    };
    socket.onclose = (event) => {
      if (closed) return;
      closed = true;
      this._closed(socket, event, opened);
    };
  }

  /** The end of `socket`: rejects what was pending, tells listeners (`close`) and schedules a reconnect. */
  _closed(socket, event, opened) {
    if (this._socket === socket) this._socket = null;
    // A refused handshake reaches scripts without a reason; say what to check.
    const reason = event.reason || (opened ? "" : REFUSED);
    this.hello = null;
    for (const { reject } of this._pending.values()) {
      reject(new RequestError({ code: "closed", message: `connection closed (${event.code} ${reason})` }));
    }
    this._pending.clear();
    const willReconnect = this.reconnect && !this._closedByUser;
    this._emit("close", { code: event.code, reason, willReconnect });
    if (willReconnect) {
      this._timer = setTimeout(() => { this._timer = null; this.connect(); }, this._delay);
      this._delay = Math.min(this._delay * 2, this.maxReconnectDelayMs);
    }
  }

  /** Closes the connection and stops reconnecting. */
  close() {
    this._closedByUser = true;
    if (this._timer) clearTimeout(this._timer);
    this._timer = null;
    if (this._socket) this._socket.close(1000);
  }

  /**
   * Subscribes (replacing an earlier subscription); repeated after every reconnect.
   * `streams`: any of "touches", "gestures", "devices" (default all); `devices`: ids or "all";
   * `predictMs` (0-50): each live touch then carries `predicted` [x, y] and each gesture update
   * `predictedMatrix`, that many ms after the message's time (docs/PREDICTION.md).
   */
  subscribe({ streams, devices, predictMs } = {}) {
    const request = {};
    if (streams) request.streams = streams;
    if (devices) request.devices = devices;
    if (predictMs !== undefined && predictMs !== null) request.predictMs = predictMs;
    this._subscription = request;
    return this.request({ type: "subscribe", ...request });
  }

  /** Stops streaming; replies continue. */
  unsubscribe() {
    this._subscription = null;
    return this.request({ type: "unsubscribe" });
  }

  /** Resolves with the daemon's `pong`. */
  ping() { return this.request({ type: "ping" }); }

  /** Resolves with the daemon's `stats` (clients, devices, latency histogram). */
  stats() { return this.request({ type: "stats" }); }

  /**
   * Resets a device's cumulative transform to identity; with `{region}`, that region's own transform
   * (one of this client's regions with a gesture session). Resolves with the `transform` reply.
   */
  resetTransform(device, { region } = {}) {
    return this.request({ type: "resetTransform", device, ...(region !== undefined ? { region } : {}) });
  }

  /**
   * Replaces a device's cumulative transform ([a, b, c, d, tx, ty], finite and invertible); with
   * `{region}`, that region's own transform. Resolves with the `transform` reply.
   */
  setTransform(device, matrix, { region } = {}) {
    return this.request({ type: "setTransform", device, matrix, ...(region !== undefined ? { region } : {}) });
  }

  /**
   * Replaces this client's regions on `device` (an empty array: the whole device again) and resolves
   * with the `regions` reply (`regions`: the ids in force); a refusal (a bad region, over budget,
   * no right) rejects with a RequestError and changes nothing. A region object: `{id, rect: [x, y,
   * width, height]}` or `{id, polygon}` in the device's published space (its `width`, `height` in
   * `client.devices`), optional `z`, `mode` ("opaque", "passthrough" with `mask`, "observer"),
   * `gestures`, `exclusive`, ... (docs/PROTOCOL.md "Region object").
   */
  async declareRegions(device, regions) {
    const reply = await this.request({ type: "declareRegions", device, regions });
    this._keepRegions(device, regions.slice(), reply);
    return reply;
  }

  /**
   * Adds or replaces (by id) some regions on `device` and removes others by id, atomically; resolves
   * with the `regions` reply.
   */
  async updateRegions(device, { regions = [], remove = [] } = {}) {
    const reply = await this.request({ type: "updateRegions", device, regions, remove });
    const kept = (this.regions.get(device) || []).filter((r) => !remove.includes(r.id));
    for (const region of regions) {
      const at = kept.findIndex((r) => r.id === region.id);
      if (at >= 0) kept[at] = region;
      else kept.push(region);
    }
    this._keepRegions(device, kept, reply);
    return reply;
  }

  /** This page's own recogniser recognised a gesture in `region`: the region's options take effect. */
  recognized(device, region) { return this.request({ type: "recognized", device, region }); }

  /**
   * Who owns which area of `device`: resolves with the `regionList` reply (root sees every region, any
   * other user its own programs' regions; through the bridge, the bridge's user).
   */
  listRegions(device) { return this.request({ type: "listRegions", device }); }

  _keepRegions(device, regions, reply) {
    const inForce = new Set(reply.regions || []);
    const kept = regions.filter((r) => inForce.has(r.id));
    if (kept.length) this.regions.set(device, kept);
    else this.regions.delete(device);
    for (const key of [...this.regionMatrices.keys()]) {
      const [d, id] = [Number(key.slice(0, key.indexOf("/"))), key.slice(key.indexOf("/") + 1)];
      if (d === device && !inForce.has(id)) this.regionMatrices.delete(key);
    }
  }

  /**
   * Sends a request with a fresh `id`; resolves with the reply carrying that id, rejects with a
   * RequestError for an `error` reply or when the connection closes first.
   */
  request(message) {
    if (!this.connected) {
      return Promise.reject(new RequestError({ code: "not-connected", message: "not connected to the bridge" }));
    }
    return this._send(message);
  }

  _send(message) {
    const id = `js-${this._nextId++}`;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      this._socket.send(JSON.stringify({ ...message, id }));
    });
  }

  _receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (e) {
      this._emit("error", { type: "error", code: "client-invalid-json", message: `not JSON: ${text.slice(0, 80)}`, fatal: false });
      return;
    }
    if (message === null || typeof message !== "object" || typeof message.type !== "string") return;
    this._track(message);
    if (message.id !== undefined && REPLY_TYPES.has(message.type) && this._pending.has(message.id)) {
      const { resolve, reject } = this._pending.get(message.id);
      this._pending.delete(message.id);
      if (message.type === "error") reject(new RequestError(message));
      else resolve(message);
    }
    this._emit(message.type, message);
    this._emit("message", message);
  }

  _track(message) {
    switch (message.type) {
      case "hello":
        this.hello = message;
        this.devices = new Map((message.devices || []).map((d) => [d.id, d]));
        break;
      case "deviceAdded":
        this.devices.set(message.device.id, message.device);
        break;
      case "deviceRemoved":
        this.devices.delete(message.device);
        // Regions live as long as the device: one that comes back is a new device (a new id).
        this.regions.delete(message.device);
        for (const key of [...this.regionMatrices.keys()]) {
          if (key.startsWith(`${message.device}/`)) this.regionMatrices.delete(key);
        }
        break;
      case "gesture":
      case "doubleTap":
      case "transform":
        if (Array.isArray(message.matrix) && message.matrix.length === 6) {
          // A region's gestures carry the region's own transform, not the device's.
          if (typeof message.region === "string") {
            this.regionMatrices.set(`${message.device}/${message.region}`, message.matrix);
            this._emit("matrix", { device: message.device, region: message.region, matrix: message.matrix });
          } else {
            this.matrices.set(message.device, message.matrix);
            this._emit("matrix", { device: message.device, matrix: message.matrix });
          }
        }
        break;
      default:
        break;
    }
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
