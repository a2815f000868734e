"""Python client for multitouchd, the Linux multitouch gesture daemon (docs/PROTOCOL.md).

Standard library only. The blocking client:

    from multitouchd_client import Client
    with Client() as c:
        c.subscribe(streams=["gestures"])
        for event in c.events():              # typed messages; c.messages() gives dicts
            if isinstance(event, Gesture):
                print(event.mode, event.phase, event.scale, event.matrix)

`multitouchd_client.aio.AsyncClient` is the same for asyncio; `Client.fileno()` with
`Client.read_available()` fits select/GLib/Qt/Tk loops; `messages(reconnect=True)` survives a daemon
restart.
"""

from ._wire import DEFAULT_SOCKET, PROTOCOL_VERSION, STREAMS, region
from .affine import Affine
from .client import Client
from .errors import ConnectionClosed, ProtocolError, ReplyError
from .messages import (Device, DeviceAdded, DeviceRemoved, DoubleTap, Dropped, Error, Gesture, Hello, LongPress, Mode,
                       Phase, Pong, Recognized, RegionList, Regions, Session, Stats, Stream, Subscribed, Tap, Touch,
                       Touches, Transform, UnknownMessage, Unsubscribed, parse)

__version__ = "0.1.0"

__all__ = [
    "Client", "Affine", "region", "ProtocolError", "ReplyError", "ConnectionClosed", "DEFAULT_SOCKET", "PROTOCOL_VERSION",
    "STREAMS", "parse", "Phase", "Mode", "Stream", "Device", "Hello", "DeviceAdded", "DeviceRemoved", "Touch",
    "Touches", "Session", "Gesture", "Tap", "DoubleTap", "LongPress", "Dropped", "Error", "Transform", "Regions",
    "Recognized", "RegionList", "Subscribed", "Unsubscribed", "Pong", "Stats", "UnknownMessage",
]
