/// What kind of multitouch surface a device is, and so which touch `type` and coordinate space it gets.
public enum DeviceClass: String, Hashable, Sendable, CaseIterable {
    /// Direct touch: the finger is on the picture (`INPUT_PROP_DIRECT` or the heuristics below).
    case touchscreen
    /// Indirect touch: a touchpad, clickpad or tablet surface that moves a pointer.
    case touchpad
    /// Not a touch device the daemon serves (keyboard, mouse, pen-only tablet, ...).
    case other
}

/// How the device reports several contacts.
public enum MultitouchProtocol: String, Hashable, Sendable {
    /// Protocol B: `ABS_MT_SLOT` with tracking ids.
    case b = "B"
    /// Protocol A: anonymous contacts separated by `SYN_MT_REPORT`.
    case a = "A"
    /// No `ABS_MT_*` axes: one contact from `ABS_X`/`ABS_Y` and `BTN_TOUCH`.
    case singleTouch = "single"
}

/// The published coordinate space of a device, named in the hello/device messages so clients know the
/// units of locations, centroids, translations and matrices.
public enum PublishedUnits: String, Hashable, Sendable {
    case pixels, millimeters
}
