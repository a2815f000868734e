"""The blocking client: one connection, newline-delimited JSON both ways (docs/PROTOCOL.md).

Only the standard library. Use it from one thread; for an event loop use `fileno()` with
`read_available()` (select, GLib, Qt, Tk), or the asyncio client in `multitouchd_client.aio`.
"""

import errno
import socket
import time

from . import _wire
from .errors import ConnectionClosed, ProtocolError
from .messages import parse

# Errors that mean "the daemon is not (or no longer) there": worth a reconnect.
_GONE = (ConnectionClosed, ConnectionRefusedError, ConnectionResetError, BrokenPipeError, FileNotFoundError)


class Client:
    """A connection to multitouchd.

    The daemon's hello is read on connect and kept in `hello`. Replies to `request()` are matched by
    id; stream messages that arrive while a reply is awaited are kept and returned, in order, by the
    next `receive()`/`messages()`, so nothing is lost.
    """

    def __init__(self, path=_wire.DEFAULT_SOCKET, timeout=None, retry_for=0.0):
        """Connect to `path`. timeout: seconds a blocking read or write may take (None: forever).
        retry_for: keep retrying a refused or missing socket this many seconds (a daemon starting)."""
        self.path = path
        self.timeout = timeout
        self._sock = None
        self._conversation = _wire.Conversation()
        self._connect(retry_for)

    # -- connection ------------------------------------------------------------------------------
    def _connect(self, retry_for):
        deadline = time.monotonic() + retry_for
        delay = 0.05
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.path)
                break
            except (ConnectionRefusedError, FileNotFoundError):
                sock.close()
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
        self._sock = sock
        self._buffer = _wire.LineBuffer()
        self._eof = False
        self._conversation.pending.clear()
        self.hello = _wire.check_hello(self._read_message())

    def reconnect(self, retry_for=30.0):
        """Connect again (after the daemon restarted) and restore the last subscription. Returns the
        new hello. The daemon's transforms start over at identity: set them again if you need them."""
        self.close()
        self._connect(retry_for)
        if self._conversation.subscription is not None:
            self.send(self._conversation.subscription)
        return self.hello

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def _open(self):
        if self._sock is None:
            raise ConnectionClosed("this client is closed")
        return self._sock

    def fileno(self):
        """The socket's descriptor, for select/poll and GUI loops. When it is readable, call
        `read_available()`. Also check `has_buffered()` first: messages may already be read."""
        return self._open.fileno()

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
        """Send one request (a dict with "type"); does not wait for the reply."""
        data = _wire.encode(request)
        self._conversation.remember(request)
        self._open.sendall(data)

    def subscribe(self, streams=None, devices=None, id=None, predict_ms=None, frames=False):
        """Start streaming and return the `subscribed` reply (a dict); ReplyError when the daemon refuses
        (a bad stream, device or predict_ms), raised here rather than arriving later as a message.
        streams: subset of ("touches", "gestures", "devices") (None: all); devices: device ids (None:
        all); predict_ms: 0-50 adds each live touch's `predicted` position and each gesture update's
        `predictedMatrix` that far ahead; frames=True holds touches and gestures until each frame() (one
        resampled touches message per display frame, raw samples in Touch.coalesced). Stream messages
        that arrive before the reply are kept for the next receive()/messages(). id: the request's id
        (default: a fresh one)."""
        return self.request(_wire.subscribe_request(streams, devices, id, predict_ms, frames))

    def frame(self, time_seconds=None):
        """Ask for the display frame at `time_seconds` (default: now, time.monotonic(); CLOCK_MONOTONIC,
        also against a replay, whose recording clock the daemon converts it to) of a subscription with
        frames=True; its messages arrive as messages (none when nothing is due)."""
        self.send(_wire.frame_request(time.monotonic() if time_seconds is None else time_seconds))

    def unsubscribe(self, id=None):
        """Stop streaming and return the `unsubscribed` reply (replies to requests still come)."""
        return self.request(dict({"type": "unsubscribe"}, **({"id": id} if id is not None else {})))

    def ping(self, id):
        """Send a ping; its `pong` (with this id) arrives as a message. request({"type": "ping"}) waits."""
        self.send({"type": "ping", "id": id})

    def stats(self, id=None):
        """Send a stats request; the reply arrives as a message. get_stats() waits for it."""
        self.send(dict({"type": "stats"}, **({"id": id} if id is not None else {})))

    def reset_transform(self, device, region=None):
        """Reset the device's cumulative transform (or, with `region`, that region's own) to identity and
        return the `transform` reply; ReplyError on a refusal (unknown device or region, no right)."""
        return self.request(_wire.transform_request(device, region=region))

    def set_transform(self, device, matrix, region=None):
        """Replace the device's cumulative transform (or, with `region`, that region's own) and return the
        `transform` reply; ReplyError on a refusal. matrix: [a, b, c, d, tx, ty] or an Affine
        (x' = a*x + c*y + tx, y' = b*x + d*y + ty), finite and invertible."""
        return self.request(_wire.transform_request(device, matrix, region=region))

    def declare_regions(self, device, regions):
        """Replace this connection's regions on `device` (a list of `region(...)` dicts; empty: the whole
        device again) and return the `regions` reply (the ids in force); ReplyError on a refusal."""
        return self.request(_wire.declare_regions_request(device, regions))

    def update_regions(self, device, regions=(), remove=()):
        """Add or replace (by id) some regions on `device` and remove others by id, atomically."""
        return self.request(_wire.update_regions_request(device, regions, remove))

    def list_regions(self, device):
        """Who owns which area of `device`: the `regionList` reply (root sees every region, anyone else
        its own user's programs'); multitouchctl regions prints the same."""
        return self.request(_wire.list_regions_request(device))

    def recognized(self, device, region):
        """This program's own recogniser recognised a gesture in its region: the region's options take
        effect (cancelsTouchesOnRecognition, exclusive)."""
        return self.request(_wire.recognized_request(device, region))

    def set_region_transform(self, device, region, matrix=None):
        """Set (matrix: [a, b, c, d, tx, ty] or an Affine) or reset (None) a region's transform; the same
        as set_transform(device, matrix, region=region) or reset_transform(device, region=region)."""
        return self.request(_wire.region_transform_request(device, region, matrix))

    def request(self, request, reply_type=None):
        """Send a request (with a fresh id unless it has one) and return its reply dict. Messages that
        arrive meanwhile are kept for the next receive(). Raises ReplyError on an error reply."""
        request = dict(request)
        reply_type = reply_type or _wire.REPLY_TYPES.get(request.get("type"))
        if reply_type is None:
            raise ValueError("unknown request type %r" % (request.get("type"),))
        if request.get("id") is None:
            request["id"] = self._conversation.fresh_id()
        id = request["id"]
        self.send(request)
        while True:
            line = self._read_line()
            if line is None:
                raise ConnectionClosed("connection closed before the %s reply" % reply_type)
            message = _wire.decode(line)
            if _wire.Conversation.is_reply(message, id, reply_type):
                return _wire.Conversation.reply_or_raise(message)
            self._conversation.pending.append(line)

    def get_stats(self):
        """The daemon's stats (a dict, docs/PROTOCOL.md "stats")."""
        return self.request({"type": "stats"})

    # -- receiving -------------------------------------------------------------------------------
    def _read_line(self):
        while True:
            line = self._buffer.next_line()
            if line is not None:
                return line
            if self._eof:
                return None
            chunk = self._open.recv(65536)
            if not chunk:
                self._eof = True
                return None
            self._buffer.feed(chunk)

    def _read_message(self):
        line = self._read_line()
        return None if line is None else _wire.decode(line)

    def receive_line(self):
        """The next raw line (bytes, no newline), or None when the daemon closed the connection.
        Lines set aside by request() come first."""
        if self._conversation.pending:
            return self._conversation.pending.popleft()
        return self._read_line()

    def receive(self):
        """The next message as a dict, or None at end of connection."""
        line = self.receive_line()
        return None if line is None else _wire.decode(line)

    def receive_event(self):
        """The next message as a typed message (multitouchd_client.messages), or None at the end."""
        message = self.receive()
        return None if message is None else parse(message)

    def has_buffered(self):
        """True when messages are already read and waiting (no need to wait for the socket)."""
        return bool(self._conversation.pending) or self._buffer.next_line_ready()

    def read_available(self):
        """Messages that can be had without blocking: what is buffered plus one non-blocking read.
        For a GUI loop, after fileno() became readable. Never blocks and never raises TimeoutError,
        whatever `timeout` the client was made with. Raises ConnectionClosed once the daemon closed
        the connection and every message before the close was returned."""
        messages = [_wire.decode(line) for line in self._conversation.pending]
        self._conversation.pending.clear()
        if not self._eof:
            chunk = self._recv_now()
            if chunk == b"":
                self._eof = True
            elif chunk:
                self._buffer.feed(chunk)
        while True:
            line = self._buffer.next_line()
            if line is None:
                break
            messages.append(_wire.decode(line))
        if not messages and self._eof:
            raise ConnectionClosed("multitouchd closed the connection")
        return messages

    def _recv_now(self):
        """One read that never waits: the bytes there are, b"" at the end of the connection, None when
        nothing is there yet. With a timeout set, Python's recv() first polls for up to that timeout
        (MSG_DONTWAIT does not stop it) and raises TimeoutError, so the socket is made non-blocking for
        this one read and given its timeout back."""
        sock = self._open
        timeout = sock.gettimeout()
        sock.settimeout(0.0)
        try:
            return sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return None
        finally:
            sock.settimeout(timeout)

    def messages(self, reconnect=False, retry_for=None):
        """Iterate over message dicts until the daemon closes the connection.

        reconnect=True: when the connection ends, connect again (retrying with a growing delay, for at
        most retry_for seconds, None: forever), restore the subscription, and go on; the new `hello`
        is yielded first so the caller sees the new device list.
        """
        while True:
            try:
                message = self.receive()
            except (OSError, ProtocolError) as error:
                if not reconnect or not isinstance(error, _GONE):
                    raise
                message = None
            if message is not None:
                yield message
                continue
            if not reconnect:
                return
            yield self._reconnect_with_backoff(retry_for)

    def events(self, reconnect=False, retry_for=None):
        """Like messages(), as typed messages."""
        for message in self.messages(reconnect, retry_for):
            yield parse(message)

    def _reconnect_with_backoff(self, retry_for):
        deadline = None if retry_for is None else time.monotonic() + retry_for
        delay = 0.1
        while True:
            try:
                return self.reconnect(retry_for=0.0)
            except OSError as error:
                if not isinstance(error, _GONE) and error.errno not in (errno.ECONNREFUSED, errno.ENOENT):
                    raise
                if deadline is not None and time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
