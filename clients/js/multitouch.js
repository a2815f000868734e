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
// `error`, `stats`, ...), `message` for every message, `matrix` when a device's cumulative matrix
// changes ({device, matrix}), `open`, and `close` ({code, reason, willReconnect}).

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

const REPLY_TYPES = new Set(["subscribed", "unsubscribed", "pong", "stats", "transform", "error"]);

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
      if (this._subscription) this._send({ type: "subscribe", ...this._subscription }).catch(() => {});
    };
    socket.onmessage = (event) => this._receive(event.data);
    let opened = false;
    socket.addEventListener("open", () => { opened = true; });
    socket.onclose = (event) => {
      this._socket = null;
      // A refused handshake (HTTP 401/403: no or wrong token, a refused origin) reaches scripts only
      // as code 1006 without a reason; say what to check.
      const reason = event.reason || (opened ? "" :
        "the bridge did not accept the WebSocket (no or wrong token? open the URL the bridge printed, with ?token=)");
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
    };
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

  /** Resets a device's cumulative transform to identity. */
  resetTransform(device) { return this.request({ type: "resetTransform", device }); }

  /** Replaces a device's cumulative transform ([a, b, c, d, tx, ty], finite and invertible). */
  setTransform(device, matrix) { return this.request({ type: "setTransform", device, matrix }); }

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
        break;
      case "gesture":
      case "doubleTap":
      case "transform":
        if (Array.isArray(message.matrix) && message.matrix.length === 6) {
          this.matrices.set(message.device, message.matrix);
          this._emit("matrix", { device: message.device, matrix: message.matrix });
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
