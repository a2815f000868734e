"""Dependency-free Python client for multitouchd (docs/PROTOCOL.md).

Only the standard library: socket and json. One connection, newline-delimited JSON both ways.

    from multitouchd_client import Client
    with Client() as c:
        c.subscribe(streams=["gestures"])
        for message in c.messages():
            if message["type"] == "gesture":
                print(message["mode"], message["phase"], message["scale"])
"""

import json
import socket

DEFAULT_SOCKET = "/run/multitouchd/multitouchd.sock"
PROTOCOL_VERSION = 1

__all__ = ["Client", "ProtocolError", "DEFAULT_SOCKET", "PROTOCOL_VERSION", "region"]


def region(id, rect=None, polygon=None, z=0, mode="opaque", mask=None, hidden=False, disabled=False, **options):
    """A region object for declare_regions/update_regions (docs/PROTOCOL.md "Touch routing").

    id: string unique among this connection's regions on the device; rect: [x, y, width, height] or
    polygon: [[x, y], ...] in the device's published space; mode: "opaque", "passthrough" (needs mask)
    or "observer"; mask: {"columns": C, "rows": R, "bits": "<base64>"}. options: gestures,
    cancelsTouchesOnRecognition, delaysTouchesUntilFailure, exclusive (booleans).
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
    for name in ("gestures", "cancelsTouchesOnRecognition", "delaysTouchesUntilFailure", "exclusive"):
        if name in options:
            r[name] = bool(options.pop(name))
    if options:
        raise TypeError("unknown region options: %s" % ", ".join(sorted(options)))
    return r


class ProtocolError(Exception):
    """The daemon sent something that is not a JSON object line, or a fatal error."""


class Client:
    """A connection to multitouchd. Not thread-safe: use it from one thread.

    The first message, the daemon's hello, is read on connect and kept in `hello`.
    """

    def __init__(self, path=DEFAULT_SOCKET, timeout=None):
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(path)
        self._buffer = b""
        self.hello = self.receive()
        if self.hello is None or self.hello.get("type") != "hello":
            raise ProtocolError("expected hello, got %r" % (self.hello,))
        if self.hello.get("protocol") != PROTOCOL_VERSION:
            raise ProtocolError("daemon speaks protocol %r, this client %d" % (self.hello.get("protocol"), PROTOCOL_VERSION))

    # -- context manager -------------------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    @property
    def devices(self):
        """Devices the daemon had when this client connected (from the hello)."""
        return self.hello.get("devices", [])

    @property
    def features(self):
        """Optional parts of the protocol the daemon serves (from the hello), e.g. ["regions"]."""
        return self.hello.get("features", [])

    # -- requests --------------------------------------------------------------------------------
    def send(self, request):
        """Send one request (a dict with "type")."""
        line = json.dumps(request, separators=(",", ":")).encode("utf-8") + b"\n"
        self._sock.sendall(line)

    def subscribe(self, streams=None, devices=None, id=None):
        """Start streaming. streams: subset of ["touches", "gestures", "devices"] (None: all);
        devices: list of device ids (None: all)."""
        request = {"type": "subscribe"}
        if streams is not None:
            request["streams"] = list(streams)
        if devices is not None:
            request["devices"] = list(devices)
        if id is not None:
            request["id"] = id
        self.send(request)

    def ping(self, id):
        self.send({"type": "ping", "id": id})

    def stats(self, id=None):
        request = {"type": "stats"}
        if id is not None:
            request["id"] = id
        self.send(request)

    def reset_transform(self, device):
        self.send({"type": "resetTransform", "device": device})

    def set_transform(self, device, matrix):
        """matrix: [a, b, c, d, tx, ty] (x' = a*x + c*y + tx, y' = b*x + d*y + ty)."""
        self.send({"type": "setTransform", "device": device, "matrix": list(matrix)})

    def declare_regions(self, device, regions, id=None):
        """Replace this connection's regions on `device` (a list of `region(...)` dicts; empty: the
        whole device again). The reply is {"type": "regions", "regions": [ids in force]} or an error;
        `request({...}, "regions")` waits for it."""
        request = {"type": "declareRegions", "device": device, "regions": list(regions)}
        if id is not None:
            request["id"] = id
        self.send(request)

    def update_regions(self, device, regions=(), remove=(), id=None):
        """Add or replace (by id) some regions on `device` and remove others by id, atomically."""
        request = {"type": "updateRegions", "device": device, "regions": list(regions), "remove": list(remove)}
        if id is not None:
            request["id"] = id
        self.send(request)

    def recognized(self, device, region, id=None):
        """This program's own recogniser recognised a gesture in its region: the region's options take
        effect (cancelsTouchesOnRecognition, exclusive). Reply: {"type": "recognized", ...}."""
        request = {"type": "recognized", "device": device, "region": region}
        if id is not None:
            request["id"] = id
        self.send(request)

    def set_region_transform(self, device, region, matrix=None, id=None):
        """Set (matrix: [a, b, c, d, tx, ty]) or reset (None) a region's cumulative transform."""
        request = {"type": "setTransform" if matrix is not None else "resetTransform", "device": device,
                   "region": region}
        if matrix is not None:
            request["matrix"] = list(matrix)
        if id is not None:
            request["id"] = id
        self.send(request)

    # -- receiving -------------------------------------------------------------------------------
    def receive_line(self):
        """The next raw line (bytes, without newline), or None when the daemon closed the connection."""
        while True:
            newline = self._buffer.find(b"\n")
            if newline >= 0:
                line = self._buffer[:newline]
                self._buffer = self._buffer[newline + 1:]
                return line
            chunk = self._sock.recv(65536)
            if not chunk:
                return None
            self._buffer += chunk

    def receive(self):
        """The next message as a dict, or None at end of connection."""
        line = self.receive_line()
        if line is None:
            return None
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError as error:
            raise ProtocolError("not a JSON line: %r (%s)" % (line[:200], error))
        if not isinstance(message, dict) or "type" not in message:
            raise ProtocolError("not a message object: %r" % (line[:200],))
        return message

    def messages(self):
        """Iterate over messages until the daemon closes the connection."""
        while True:
            message = self.receive()
            if message is None:
                return
            yield message

    def request(self, request, reply_type):
        """Send a request with a fresh id and return its reply (messages arriving meanwhile are kept
        out of the way in `pending`). Raises ProtocolError on an error reply."""
        self._next_id = getattr(self, "_next_id", 0) + 1
        request = dict(request, id=self._next_id)
        self.send(request)
        self.pending = getattr(self, "pending", [])
        while True:
            message = self.receive()
            if message is None:
                raise ProtocolError("connection closed before the %s reply" % reply_type)
            if message.get("id") == self._next_id and message["type"] in (reply_type, "error"):
                if message["type"] == "error":
                    raise ProtocolError("%s: %s" % (message.get("code"), message.get("message")))
                return message
            self.pending.append(message)
