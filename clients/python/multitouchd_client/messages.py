"""Typed messages: `parse(dict)` turns a server message into one of the dataclasses below.

Field names follow Python style (`tap_count` for "tapCount"); every message keeps the dict it came
from in `raw`, so fields a later daemon adds are not lost. Enumerated strings are `str` enums, so
`gesture.phase == "began"` and `gesture.phase is Phase.BEGAN` both hold. An unknown message type
parses to `UnknownMessage` (clients must ignore what they do not know, docs/PROTOCOL.md).

Messages routed to one of the client's regions (docs/PROTOCOL.md "Touch routing") carry the region's id
in `region` (None on the whole-device stream); `Touches` also carries `role` ("owner" or "observer")
and, when the daemon itself ended the touches, `reason` ("region removed", "client gone", ...).
"""

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from .affine import Affine
from .errors import ProtocolError


class Phase(str, enum.Enum):
    """Phase of a touch, session, gesture segment or long press."""

    BEGAN = "began"
    MOVED = "moved"
    STATIONARY = "stationary"
    CHANGED = "changed"
    ENDED = "ended"
    CANCELLED = "cancelled"


class Mode(str, enum.Enum):
    """The kind of gesture segment (Gestures.GestureMode): one finger pans, two or more pinch and
    rotate, a finger that tapped and landed again quick-zooms; momentum and animatedZoom run with no
    finger (fingers 0) after the session ended."""

    PAN = "pan"
    PINCH_ROTATE = "pinchRotate"
    QUICK_ZOOM = "quickZoom"
    MOMENTUM = "momentum"
    ANIMATED_ZOOM = "animatedZoom"


class Stream(str, enum.Enum):
    """The streams a client subscribes to."""

    TOUCHES = "touches"
    GESTURES = "gestures"
    DEVICES = "devices"


Point = Tuple[float, float]


def _point(value) -> Point:
    return (float(value[0]), float(value[1]))


@dataclass(frozen=True)
class Device:
    """A device object (in `hello` and `deviceAdded`)."""

    id: int
    name: str
    source: str
    device_class: str
    protocol: str
    slots: int
    semi_mt: bool
    units: str
    width: float
    height: float
    width_mm: float
    height_mm: float
    size_source: str

    @classmethod
    def from_dict(cls, d):
        return cls(d["id"], d["name"], d["source"], d["class"], d["protocol"], d["slots"], d["semiMT"], d["units"],
                   d["width"], d["height"], d["widthMM"], d["heightMM"], d["sizeSource"])


@dataclass(frozen=True)
class Hello:
    daemon: str
    protocol: int
    devices: List[Device]
    raw: Dict[str, Any] = field(repr=False, compare=False)
    # Optional parts of the protocol the daemon serves, e.g. ["regions"].
    features: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class DeviceAdded:
    device: Device
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class DeviceRemoved:
    device: int
    time: Optional[float]
    reason: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Touch:
    id: int
    phase: Phase
    x: float
    y: float
    prev_x: float
    prev_y: float
    nx: float
    ny: float
    mm_x: float
    mm_y: float
    slot: int
    tap_count: int
    type: str
    major_radius: Optional[float] = None
    minor_radius: Optional[float] = None
    orientation: Optional[float] = None
    force: Optional[float] = None
    # Where the daemon predicts the touch at the message's time plus the horizon the client asked for
    # (published space); None unless predictions were asked for (docs/PREDICTION.md).
    predicted: Optional[Point] = None
    # On a frame-aligned subscription (frames=True): the raw samples of this touch the frame consumed,
    # oldest first, as (x, y, time) tuples; x, y above are resampled at the message's time. None otherwise.
    coalesced: Optional[tuple] = None

    @classmethod
    def from_dict(cls, t):
        predicted = t.get("predicted")
        coalesced = t.get("coalesced")
        # Protocol 2 leaves out mmX/mmY where they equal x/y (the published space is millimetres).
        return cls(t["id"], Phase(t["phase"]), t["x"], t["y"], t["prevX"], t["prevY"], t["nx"], t["ny"],
                   t.get("mmX", t["x"]), t.get("mmY", t["y"]), t["slot"], t["tapCount"], t["type"], t.get("majorRadius"), t.get("minorRadius"),
                   t.get("orientation"), t.get("force"), None if predicted is None else _point(predicted),
                   None if coalesced is None else tuple((float(x), float(y), float(s)) for x, y, s in coalesced))


@dataclass(frozen=True)
class Touches:
    device: int
    time: float
    fingers: int
    touches: List[Touch]
    semi_mt: bool
    raw: Dict[str, Any] = field(repr=False, compare=False)
    # Routed to one of this client's regions: its id, and whether the client owns or observes it there.
    region: Optional[str] = None
    role: Optional[str] = None
    # Set when the daemon itself cancelled these touches for this client: "region removed", "client
    # gone", "device removed", "gesture recognized" or "claimed by owner".
    reason: Optional[str] = None


@dataclass(frozen=True)
class Session:
    device: int
    time: float
    session: int
    phase: Phase
    raw: Dict[str, Any] = field(repr=False, compare=False)
    region: Optional[str] = None


@dataclass(frozen=True)
class Velocity:
    translation: Point
    scale: float
    rotation: float


@dataclass(frozen=True)
class Gesture:
    """A segment update. `matrix` is the device's cumulative content transform: draw with it."""

    device: int
    time: float
    session: int
    seq: int
    phase: Phase
    mode: Mode
    fingers: int
    centroid: Point
    translation: Point
    scale: float
    rotation: float
    velocity: Velocity
    matrix: Affine
    raw: Dict[str, Any] = field(repr=False, compare=False)
    # The matrix the content should show at time plus the prediction horizon; None unless asked for.
    predicted_matrix: Optional[Affine] = None
    # A region's own gesture session: its id, and `matrix` is the region's own cumulative transform.
    region: Optional[str] = None


@dataclass(frozen=True)
class Tap:
    device: int
    time: float
    session: int
    location: Point
    tap_count: int
    fingers: int
    raw: Dict[str, Any] = field(repr=False, compare=False)
    region: Optional[str] = None


@dataclass(frozen=True)
class DoubleTap:
    device: int
    time: float
    session: int
    location: Point
    matrix: Affine
    raw: Dict[str, Any] = field(repr=False, compare=False)
    region: Optional[str] = None


@dataclass(frozen=True)
class LongPress:
    device: int
    time: float
    session: int
    phase: Phase
    location: Point
    fingers: int
    raw: Dict[str, Any] = field(repr=False, compare=False)
    region: Optional[str] = None


@dataclass(frozen=True)
class Dropped:
    device: Optional[int]
    time: Optional[float]
    count: int
    unit: str
    reason: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Error:
    code: str
    message: str
    fatal: bool
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Transform:
    """The reply to set/resetTransform, or (without id) another client's change of a device's base;
    `region` names the region whose own transform a request set."""

    device: int
    matrix: Affine
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)
    region: Optional[str] = None


@dataclass(frozen=True)
class Subscribed:
    streams: List[Stream]
    devices: Union[str, List[int]]
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Regions:
    """The reply to declareRegions/updateRegions: this client's region ids in force on the device."""

    device: int
    regions: List[str]
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Recognized:
    """The reply to recognized."""

    device: int
    region: str
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class RegionList:
    """The reply to listRegions: the device's regions this client may see, topmost first. Each is the
    region object as sent: region, client/pid/uid (or configured), z, band, mode, exclusive, hidden,
    disabled, bounds ([x, y, width, height])."""

    device: int
    regions: List[Dict[str, Any]]
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Unsubscribed:
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Pong:
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Stats:
    """The daemon's stats; the nested lists stay dicts (see docs/PROTOCOL.md, "stats")."""

    uptime: float
    clients: List[Dict[str, Any]]
    devices: List[Dict[str, Any]]
    latency: Dict[str, Any]
    id: Any
    raw: Dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class UnknownMessage:
    type: str
    raw: Dict[str, Any] = field(repr=False, compare=False)


def _hello(m):
    return Hello(m["daemon"], m["protocol"], [Device.from_dict(d) for d in m["devices"]], m,
                 [str(f) for f in m.get("features", [])])


def _touches(m):
    return Touches(m["device"], m["time"], m["fingers"], [Touch.from_dict(t) for t in m["touches"]],
                   bool(m.get("semiMT", False)), m, m.get("region"), m.get("role"), m.get("reason"))


def _gesture(m):
    v = m["velocity"]
    return Gesture(m["device"], m["time"], m["session"], m["seq"], Phase(m["phase"]), Mode(m["mode"]), m["fingers"],
                   _point(m["centroid"]), _point(m["translation"]), m["scale"], m["rotation"],
                   Velocity(_point(v["translation"]), v["scale"], v["rotation"]), Affine.from_list(m["matrix"]), m,
                   Affine.from_list(m["predictedMatrix"]) if "predictedMatrix" in m else None, m.get("region"))


_PARSERS = {
    "hello": _hello,
    "deviceAdded": lambda m: DeviceAdded(Device.from_dict(m["device"]), m),
    "deviceRemoved": lambda m: DeviceRemoved(m["device"], m.get("time"), m["reason"], m),
    "touches": _touches,
    "session": lambda m: Session(m["device"], m["time"], m["session"], Phase(m["phase"]), m, m.get("region")),
    "gesture": _gesture,
    "tap": lambda m: Tap(m["device"], m["time"], m["session"], _point(m["location"]), m["tapCount"], m["fingers"], m,
                         m.get("region")),
    "doubleTap": lambda m: DoubleTap(m["device"], m["time"], m["session"], _point(m["location"]),
                                     Affine.from_list(m["matrix"]), m, m.get("region")),
    "longPress": lambda m: LongPress(m["device"], m["time"], m["session"], Phase(m["phase"]), _point(m["location"]),
                                     m["fingers"], m, m.get("region")),
    "dropped": lambda m: Dropped(m.get("device"), m.get("time"), m["count"], m["unit"], m["reason"], m),
    "error": lambda m: Error(m["code"], m["message"], m["fatal"], m.get("id"), m),
    "transform": lambda m: Transform(m["device"], Affine.from_list(m["matrix"]), m.get("id"), m, m.get("region")),
    "regions": lambda m: Regions(m["device"], [str(r) for r in m["regions"]], m.get("id"), m),
    "recognized": lambda m: Recognized(m["device"], m["region"], m.get("id"), m),
    "regionList": lambda m: RegionList(m["device"], [dict(r) for r in m["regions"]], m.get("id"), m),
    "subscribed": lambda m: Subscribed([Stream(s) for s in m["streams"]], m["devices"], m.get("id"), m),
    "unsubscribed": lambda m: Unsubscribed(m.get("id"), m),
    "pong": lambda m: Pong(m.get("id"), m),
    "stats": lambda m: Stats(m["uptime"], m["clients"], m["devices"], m["latency"], m.get("id"), m),
}

Message = Union[Hello, DeviceAdded, DeviceRemoved, Touches, Session, Gesture, Tap, DoubleTap, LongPress, Dropped,
                Error, Transform, Regions, Recognized, RegionList, Subscribed, Unsubscribed, Pong, Stats, UnknownMessage]


def parse(message: Dict[str, Any]) -> Message:
    """The typed form of a message dict. ProtocolError when a known type lacks a field or has a bad value."""
    parser = _PARSERS.get(message.get("type"))
    if parser is None:
        return UnknownMessage(str(message.get("type")), message)
    try:
        return parser(message)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise ProtocolError("malformed %s message (%s: %s): %r" % (
            message.get("type"), type(error).__name__, error, message)) from None
