"""The parts of the protocol both clients share: framing, request building, reply matching.

One definition, used by the blocking `Client` and the asyncio `AsyncClient`, so the two cannot drift.
No I/O here: the clients feed bytes in and take lines and messages out.
"""

import collections
import json
import math

from .errors import ProtocolError, ReplyError

DEFAULT_SOCKET = "/run/multitouchd/multitouchd.sock"
PROTOCOL_VERSION = 2
# Protocol 2 leaves out a touch's mmX/mmY where they equal x/y (Touch reads x/y for them then); a
# protocol 1 daemon always sends them, so this client reads both.
SUPPORTED_PROTOCOLS = (1, 2)
STREAMS = ("touches", "gestures", "devices")
# The daemon's default [clients] max_line_bytes; replies are never longer than a stats message.
MAX_LINE_BYTES = 1 << 20


def encode(request):
    """One request dict as the bytes of one line."""
    if not isinstance(request, dict) or not isinstance(request.get("type"), str):
        raise ValueError("a request is a dict with a string \"type\", got %r" % (request,))
    return json.dumps(request, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n"


def decode(line):
    """One received line (bytes, no newline) as a message dict; ProtocolError when it is not one."""
    try:
        message = json.loads(line.decode("utf-8"))
    except ValueError as error:
        raise ProtocolError("not a JSON line: %r (%s)" % (line[:200], error)) from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("not a message object: %r" % (line[:200],))
    return message


def check_hello(message):
    """The first message of a connection must be a hello of a protocol version we read."""
    if message is None:
        raise ProtocolError("the daemon closed the connection before its hello")
    if message.get("type") != "hello":
        if message.get("type") == "error":
            raise ReplyError(message)
        raise ProtocolError("expected hello, got %r" % (message,))
    if message.get("protocol") not in SUPPORTED_PROTOCOLS:
        raise ProtocolError("daemon speaks protocol %r, this client %s" % (
            message.get("protocol"), " or ".join(map(str, SUPPORTED_PROTOCOLS))))
    return message


def subscribe_request(streams=None, devices=None, id=None, predict_ms=None, frames=False):
    """A subscribe request. streams: subset of STREAMS (None: all); devices: device ids (None: all);
    predict_ms: 0-50 to receive predicted touches and matrices that far ahead (docs/PREDICTION.md);
    frames: True to receive touches and gestures one display frame at a time (frame_request)."""
    request = {"type": "subscribe"}
    if streams is not None:
        streams = [streams] if isinstance(streams, str) else list(streams)
        unknown = [s for s in streams if s not in STREAMS]
        if unknown:
            raise ValueError("unknown stream %s; known: %s" % (", ".join(map(repr, unknown)), ", ".join(STREAMS)))
        request["streams"] = streams
    if devices is not None:
        request["devices"] = devices if devices == "all" else [int(d) for d in devices]
    if predict_ms is not None:
        if isinstance(predict_ms, bool) or not isinstance(predict_ms, int) or not 0 <= predict_ms <= 50:
            raise ValueError("predict_ms must be an integer 0...50, not %r" % (predict_ms,))
        request["predictMs"] = predict_ms
    if frames:
        request["frames"] = True
    if id is not None:
        request["id"] = id
    return request


def frame_request(time_seconds):
    """A display frame of a frame-aligned subscription, at `time_seconds` on CLOCK_MONOTONIC (as
    time.monotonic(); a replaying daemon converts it to the recording's clock): answered with the frame's
    resampled touches and gestures."""
    if isinstance(time_seconds, bool) or not isinstance(time_seconds, (int, float)) or not time_seconds >= 0:
        raise ValueError("a frame time must be a non-negative number of seconds, not %r" % (time_seconds,))
    return {"type": "frame", "time": round(float(time_seconds), 6)}


def transform_request(device, matrix=None, region=None):
    """setTransform (matrix: [a, b, c, d, tx, ty] or an Affine) or, without a matrix, resetTransform;
    with `region` (a region id of this client on the device), that region's own transform."""
    if matrix is None:
        request = {"type": "resetTransform", "device": int(device)}
    else:
        request = {"type": "setTransform", "device": int(device), "matrix": [_number(v) for v in matrix]}
    if region is not None:
        if not isinstance(region, str) or not region:
            raise ValueError("a region is a non-empty string id, not %r" % (region,))
        request["region"] = region
    return request


def region(id, rect=None, polygon=None, z=0, mode="opaque", mask=None, hidden=False, disabled=False, **options):
    """A region object for declareRegions/updateRegions (docs/PROTOCOL.md "Touch routing").

    id: string unique among this connection's regions on the device; rect: [x, y, width, height] or
    polygon: [[x, y], ...] in the device's published space; mode: "opaque", "passthrough" (needs mask)
    or "observer"; mask: {"columns": C, "rows": R, "bits": "<base64>"}. options: gestures (a boolean, or
    the region's own gesture settings, e.g. {"momentum": True, "double_tap_zoom_factor": 2}, which the
    daemon checks like [gestures]), cancelsTouchesOnRecognition, delaysTouchesUntilFailure, exclusive
    (booleans).
    """
    if (rect is None) == (polygon is None):
        raise ValueError("a region needs exactly one of rect and polygon")
    r = {"id": id}
    if rect is not None:
        r["rect"] = list(rect)
    else:
        r["polygon"] = [list(p) for p in polygon]
    if mask is not None:
        r["mask"] = dict(mask)
    if z:
        r["z"] = z
    if mode != "opaque":
        r["mode"] = mode
    if hidden:
        r["hidden"] = True
    if disabled:
        r["disabled"] = True
    if isinstance(options.get("gestures"), dict):
        r["gestures"] = dict(options.pop("gestures"))
    for name in ("gestures", "cancelsTouchesOnRecognition", "delaysTouchesUntilFailure", "exclusive"):
        if name in options:
            r[name] = bool(options.pop(name))
    if options:
        raise TypeError("unknown region options: %s" % ", ".join(sorted(options)))
    return r


def declare_regions_request(device, regions):
    """Replaces this connection's regions on `device` (empty: the whole device again)."""
    return {"type": "declareRegions", "device": int(device), "regions": list(regions)}


def update_regions_request(device, regions=(), remove=()):
    """Adds or replaces (by id) some regions and removes others by id, atomically."""
    return {"type": "updateRegions", "device": int(device), "regions": list(regions), "remove": list(remove)}


def list_regions_request(device):
    """listRegions: who owns which area of `device` (root: every region; anyone else: its own user's)."""
    return {"type": "listRegions", "device": int(device)}


def recognized_request(device, region):
    """This program's own recogniser recognised a gesture in `region`: its options take effect."""
    return {"type": "recognized", "device": int(device), "region": region}


def region_transform_request(device, region, matrix=None):
    """A region's cumulative transform: set (matrix) or, without one, reset."""
    return transform_request(device, matrix, region=region)


def _number(value):
    """A matrix entry as the daemon writes numbers: whole values without ".0" (2, not 2.0), so a
    request is the same bytes from Python as from the Swift client (checks/protocol/golden)."""
    f = float(value)
    if not math.isfinite(f):
        raise ValueError("matrix entries must be finite, not %r" % (value,))
    # -0.0 stays a float: the daemon writes it as -0, and int() would lose the sign.
    if f.is_integer() and abs(f) < 1e15 and not (f == 0 and math.copysign(1.0, f) < 0):
        return int(f)
    return f


class LineBuffer:
    """Bytes in, complete lines out. Keeps the partial last line between feeds."""

    def __init__(self, limit=MAX_LINE_BYTES):
        self._data = bytearray()
        self._limit = limit

    def feed(self, chunk):
        self._data += chunk

    def next_line(self):
        """The next complete line without its newline, or None when no complete line is buffered."""
        newline = self._data.find(b"\n")
        if newline < 0:
            if len(self._data) > self._limit:
                raise ProtocolError("a line from the daemon passed %d bytes without a newline" % self._limit)
            return None
        line = bytes(self._data[:newline])
        del self._data[:newline + 1]
        return line

    def next_line_ready(self):
        return b"\n" in self._data

    def __len__(self):
        return len(self._data)


class Conversation:
    """Request ids, the messages that arrived while a reply was awaited, and the subscription to
    restore after a reconnect. Shared by both clients."""

    def __init__(self):
        self._next_id = 0
        # Lines read while waiting for a reply: handed out, in order, before anything read later.
        self.pending = collections.deque()
        self.subscription = None

    def fresh_id(self):
        self._next_id += 1
        return "py-%d" % self._next_id

    def remember(self, request):
        if request.get("type") == "subscribe":
            self.subscription = {k: v for k, v in request.items() if k != "id"}
        elif request.get("type") == "unsubscribe":
            self.subscription = None

    @staticmethod
    def is_reply(message, id, reply_type):
        """True for the reply (or the error) answering the request with this id."""
        return message.get("id") == id and message["type"] in (reply_type, "error")

    @staticmethod
    def reply_or_raise(message):
        if message["type"] == "error":
            raise ReplyError(message)
        return message


REPLY_TYPES = {
    "subscribe": "subscribed",
    "unsubscribe": "unsubscribed",
    "ping": "pong",
    "stats": "stats",
    "resetTransform": "transform",
    "setTransform": "transform",
    "declareRegions": "regions",
    "updateRegions": "regions",
    "recognized": "recognized",
    "listRegions": "regionList",
}
