import MultitouchCore

/// What the gesture engine needs to know about the device it serves, as data: its class (whether the
/// finger is on the picture, whether its two slots are a semi-mt bounding box), whether it is a
/// clickpad (a button area at the bottom, thumbs resting on it), and how tall it is (thumb rules are
/// fractions of it). Given once, when the engine is made: frames carry none of it.
public struct GestureSurface: Hashable, Sendable {
    /// The class the device is served as (`DeviceDescription.kind`, chosen by its pipeline).
    public var kind: DeviceKind
    /// `INPUT_PROP_BUTTONPAD`: the whole surface clicks; its bottom is a button area.
    public var isClickpad: Bool
    /// Height of the surface in mm (Y runs from 0 at the top to this at the bottom).
    public var heightMillimeters: Double

    public init(kind: DeviceKind, isClickpad: Bool = false, heightMillimeters: Double = 0) {
        self.kind = kind
        self.isClickpad = isClickpad
        self.heightMillimeters = heightMillimeters
    }

    /// Touchscreen (direct) or touchpad (indirect).
    public var type: TouchType { kind.touchType }

    /// The touches are the corners of a bounding box (a semi-mt touchpad): no rotation from them.
    public var isSemiMT: Bool { kind.isSemiMT }

    /// A touchscreen without button area or thumb rules.
    public static let touchscreen = GestureSurface(kind: .touchscreen)

    /// The surface of `description`, served as `kind`, with the size `mapper` gives it.
    public init(kind: DeviceKind, description: DeviceDescription, mapper: CoordinateMapper) {
        self.init(
            kind: kind, isClickpad: description.hasProperty(InputProperty.buttonpad),
            heightMillimeters: mapper.sizeMillimeters.height)
    }

    /// Top edge (mm) of the clickpad's bottom button area: the bottom 10 mm or 15 % of the height,
    /// whichever is smaller (libinput tp_init_softbuttons). Nil for other surfaces.
    public var buttonAreaTop: Double? {
        guard isClickpad, type == .indirect, heightMillimeters > 0 else { return nil }
        return heightMillimeters - min(10, heightMillimeters * 0.15)
    }

    /// Thumb lines (mm from the top) of a clickpad at least 50 mm tall: a new touch below `upper`
    /// (85 %) starts jailed, and pressure counts below `lower` (92 %) (libinput tp_init_thumb: smaller
    /// pads get no thumb detection). Nil for other surfaces.
    public var thumbLines: (upper: Double, lower: Double)? {
        guard isClickpad, type == .indirect, heightMillimeters >= 50 else { return nil }
        return (heightMillimeters * 0.85, heightMillimeters * 0.92)
    }
}
