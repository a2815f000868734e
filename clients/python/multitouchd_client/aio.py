"""The asyncio client: the same protocol as `Client`, for programs built on an asyncio event loop.

    import asyncio
    from multitouchd_client.aio import AsyncClient

    async def main():
        async with await AsyncClient.connect() as client:
            await client.subscribe(streams=["gestures"])
            async for event in client.events():
                print(event)

    asyncio.run(main())
"""

import asyncio
import time

from . import _wire
from .errors import ConnectionClosed
from .messages import parse


class AsyncClient:
    """A connection to multitouchd on an asyncio loop. Create it with `await AsyncClient.connect()`.

    As with `Client`, replies to `request()` are matched by id and stream messages that arrive
    meanwhile are handed out, in order, by the next `receive()`/`messages()`. Use one task to read.
    """

    def __init__(self, path, reader, writer, hello):
        self.path = path
        self._reader = reader
        self._writer = writer
        self.hello = hello
        self._conversation = _wire.Conversation()

    @classmethod
    async def connect(cls, path=_wire.DEFAULT_SOCKET, retry_for=0.0):
        """Connect and read the hello. retry_for: keep retrying a refused or missing socket this long."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + retry_for
        delay = 0.05
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(path, limit=_wire.MAX_LINE_BYTES)
                break
            except (ConnectionRefusedError, FileNotFoundError):
                if loop.time() + delay > deadline:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
        line = await reader.readline()
        hello = _wire.check_hello(_wire.decode(line.rstrip(b"\n")) if line else None)
        return cls(path, reader, writer, hello)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()
        return False

    async def close(self):
        if not self._writer.is_closing():
            self._writer.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, BrokenPipeError):
            pass

    @property
    def devices(self):
        return self.hello.get("devices", [])

    @property
    def features(self):
        return self.hello.get("features", [])

    async def send(self, request):
        data = _wire.encode(request)
        self._conversation.remember(request)
        self._writer.write(data)
        await self._writer.drain()

    async def subscribe(self, streams=None, devices=None, predict_ms=None, frames=False):
        """Subscribe and wait for the `subscribed` reply (returned as a dict); predict_ms, frames as in Client."""
        return await self.request(_wire.subscribe_request(streams, devices, predict_ms=predict_ms, frames=frames))

    async def frame(self, time_seconds=None):
        """Ask for the display frame at `time_seconds` (default: now, time.monotonic(); CLOCK_MONOTONIC
        seconds, also against a replay) of a frames=True subscription."""
        await self.send(_wire.frame_request(time.monotonic() if time_seconds is None else time_seconds))

    async def set_transform(self, device, matrix, region=None):
        """Replace the device's (or, with `region`, that region's) transform; the `transform` reply."""
        return await self.request(_wire.transform_request(device, matrix, region=region))

    async def reset_transform(self, device, region=None):
        """Reset the device's (or, with `region`, that region's) transform; the `transform` reply."""
        return await self.request(_wire.transform_request(device, region=region))

    async def declare_regions(self, device, regions):
        return await self.request(_wire.declare_regions_request(device, regions))

    async def update_regions(self, device, regions=(), remove=()):
        return await self.request(_wire.update_regions_request(device, regions, remove))

    async def list_regions(self, device):
        return await self.request(_wire.list_regions_request(device))

    async def recognized(self, device, region):
        return await self.request(_wire.recognized_request(device, region))

    async def set_region_transform(self, device, region, matrix=None):
        return await self.request(_wire.region_transform_request(device, region, matrix))

    async def get_stats(self):
        return await self.request({"type": "stats"})

    async def ping(self):
        return await self.request({"type": "ping"})

    async def request(self, request, reply_type=None):
        """Send a request with a fresh id and return its reply dict; ReplyError on an error reply."""
        request = dict(request)
        reply_type = reply_type or _wire.REPLY_TYPES.get(request.get("type"))
        if reply_type is None:
            raise ValueError("unknown request type %r" % (request.get("type"),))
        id = request["id"] = self._conversation.fresh_id()
        await self.send(request)
        while True:
            line = await self._read_line()
            if line is None:
                raise ConnectionClosed("connection closed before the %s reply" % reply_type)
            message = _wire.decode(line)
            if _wire.Conversation.is_reply(message, id, reply_type):
                return _wire.Conversation.reply_or_raise(message)
            self._conversation.pending.append(line)

    async def _read_line(self):
        line = await self._reader.readline()
        if not line:
            return None
        if not line.endswith(b"\n"):
            return None  # the daemon closed mid-line: the partial line is not a message
        return line[:-1]

    async def receive(self):
        """The next message dict, or None when the daemon closed the connection."""
        if self._conversation.pending:
            return _wire.decode(self._conversation.pending.popleft())
        line = await self._read_line()
        return None if line is None else _wire.decode(line)

    async def messages(self):
        """Message dicts until the daemon closes the connection."""
        while True:
            message = await self.receive()
            if message is None:
                return
            yield message

    async def events(self):
        """Typed messages until the daemon closes the connection."""
        async for message in self.messages():
            yield parse(message)
