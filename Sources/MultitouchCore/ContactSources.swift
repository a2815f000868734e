/// How one device kind's events become slot values: chosen once per device, when the tracker is made,
/// as libinput picks an `evdev_dispatch_interface` per device (src/evdev.h). Each source only parses
/// its kind's events into the shared `ContactTable` (tracking ids, raw values, keys); what every kind
/// shares (palm, jumps, units, the published touches) stays in the table.
///
/// The kind is a one-byte tag switched once per frame, and each kind's source is a concrete struct
/// mutated in place: no existential, no witness-table call, and no copy or move of a source per frame
/// (an enum with payloads measured +0.1 to +0.7% instructions per event from moving its payload in and
/// out, and +7% on protocol A from copying the scratch arrays). The sources of the other kinds stay
/// empty: their arrays never allocate.
struct ContactSource {
    enum Kind: Sendable {
        /// Protocol B: `ABS_MT_SLOT` with kernel tracking ids.
        case slots
        /// `INPUT_PROP_SEMI_MT` with slots: two slots that are a bounding box, not two fingers.
        case semiMT
        /// Protocol A: anonymous contacts, matched into stable ids.
        case protocolA
        /// `ABS_X`/`ABS_Y` and a touch key: one contact.
        case singleTouch
    }

    let kind: Kind
    private var slots: ProtocolBSource
    private var semiMT: SemiMTSource
    private var protocolA: ProtocolASource
    private var singleTouch = SingleTouchSource()

    init(features: DeviceFeatures) {
        switch features.kind {
        case .b: kind = features.deviceKind == .semiMTTouchpad ? .semiMT : .slots
        case .a: kind = .protocolA
        case .singleTouch: kind = .singleTouch
        }
        slots = ProtocolBSource(features: features)
        semiMT = SemiMTSource(features: features)
        protocolA = ProtocolASource(slotCount: kind == .protocolA ? features.slotCount : 0)
    }

    /// Writes one frame's events into `table`.
    @inline(__always)
    mutating func apply(_ events: [InputEvent], to table: inout ContactTable) {
        switch kind {
        case .slots: slots.apply(events, to: &table)
        case .semiMT: semiMT.apply(events, to: &table)
        case .protocolA: protocolA.apply(events, to: &table)
        case .singleTouch: singleTouch.apply(events, to: &table)
        }
    }
}

/// Protocol B: slot 0 is implied until the first `ABS_MT_SLOT`; a slot keeps its values across frames.
/// A slot number outside the declared range makes the following slot events be ignored until the next
/// valid `ABS_MT_SLOT`.
struct ProtocolBSource {
    private let slotMinimum: Int
    /// Slot events go to this slot; -1 after an out-of-range `ABS_MT_SLOT`.
    private var currentSlot = 0

    init(features: DeviceFeatures) { slotMinimum = features.slotMinimum }

    mutating func apply(_ events: [InputEvent], to table: inout ContactTable) {
        let count = table.slots.count
        let slotMinimum = slotMinimum
        for event in events {
            switch event.type {
            case EventType.abs:
                if event.code == AbsCode.mtSlot {
                    let index = Int(event.value) - slotMinimum
                    currentSlot = index >= 0 && index < count ? index : -1
                    continue
                }
                let slot = currentSlot
                guard slot >= 0 else { continue }
                switch event.code {
                case AbsCode.mtTrackingID: table.setTrackingID(event.value, slot: slot)
                case AbsCode.mtPositionX: table.slots[slot].raw.position.x = event.value
                case AbsCode.mtPositionY: table.slots[slot].raw.position.y = event.value
                case AbsCode.mtTouchMajor: table.slots[slot].raw.touchMajor = event.value
                case AbsCode.mtTouchMinor: table.slots[slot].raw.touchMinor = event.value
                case AbsCode.mtOrientation: table.slots[slot].raw.orientation = event.value
                case AbsCode.mtPressure: table.slots[slot].raw.pressure = event.value
                case AbsCode.mtToolType: table.slots[slot].raw.toolType = event.value
                default: break
                }
            case EventType.key:
                table.applyKey(event.code, event.value)
            case EventType.msc:
                if event.code == MscCode.timestamp { table.noteScanTime(event.value) }
            default:
                break
            }
        }
    }
}

/// Semi-mt (`INPUT_PROP_SEMI_MT`): the kernel reports two protocol B slots that are the corners of the
/// fingers' bounding box, and the finger count through `BTN_TOOL_*TAP` (which the table counts on an
/// indirect device). The slots parse as protocol B; the device's class (`DeviceKind.semiMTTouchpad`)
/// tells the gesture surface to read the box, not two fingers (libinput's touchpad dispatch treats
/// such pads the same way).
struct SemiMTSource {
    private var slots: ProtocolBSource

    init(features: DeviceFeatures) { slots = ProtocolBSource(features: features) }

    @inline(__always)
    mutating func apply(_ events: [InputEvent], to table: inout ContactTable) {
        slots.apply(events, to: &table)
    }
}

/// Protocol A: every frame lists all contacts; `ProtocolAMatcher` gives them stable ids. A frame with
/// `SYN_MT_REPORT` but no contact, or with `BTN_TOUCH` 0 and no contact, ends all of them; a frame
/// without any contact data (e.g. only `MSC_TIMESTAMP`) changes nothing.
struct ProtocolASource {
    private var matcher = ProtocolAMatcher()
    // Scratch, allocated once.
    private var contact = RawContact()
    private var contactHasPosition = false
    private var contacts: [RawContact]
    /// Millimetres (`ProtocolAMatcher` works in the sensor's physical space).
    private var previousPoints: [Point]
    private var previousSlots: [Int]
    private var currentPoints: [Point]
    private var assignment: [Int]
    private var slotMatched: [Bool]

    init(slotCount count: Int) {
        contacts = []
        contacts.reserveCapacity(count)
        previousPoints = []
        previousPoints.reserveCapacity(count)
        previousSlots = []
        previousSlots.reserveCapacity(count)
        currentPoints = []
        currentPoints.reserveCapacity(count)
        assignment = []
        assignment.reserveCapacity(count)
        slotMatched = Array(repeating: false, count: count)
    }

    mutating func apply(_ events: [InputEvent], to table: inout ContactTable) {
        contacts.removeAll(keepingCapacity: true)
        contact = RawContact()
        contactHasPosition = false
        var sawContactReport = false
        var touchKeyReleased = false
        let limit = table.slots.count
        for event in events {
            switch event.type {
            case EventType.syn:
                if event.code == SynCode.mtReport {
                    sawContactReport = true
                    closeContact(limit: limit)
                }
            case EventType.abs:
                switch event.code {
                case AbsCode.mtPositionX:
                    contact.position.x = event.value
                    contactHasPosition = true
                case AbsCode.mtPositionY:
                    contact.position.y = event.value
                    contactHasPosition = true
                case AbsCode.mtTouchMajor: contact.touchMajor = event.value
                case AbsCode.mtTouchMinor: contact.touchMinor = event.value
                case AbsCode.mtOrientation: contact.orientation = event.value
                case AbsCode.mtPressure: contact.pressure = event.value
                case AbsCode.mtToolType: contact.toolType = event.value
                default: break
                }
            case EventType.key:
                if event.code == KeyCode.btnTouch && event.value == 0 { touchKeyReleased = true }
                table.applyKey(event.code, event.value)
            case EventType.msc:
                if event.code == MscCode.timestamp { table.noteScanTime(event.value) }
            default:
                break
            }
        }
        // Be lenient with a last contact whose SYN_MT_REPORT is missing.
        if contactHasPosition { closeContact(limit: limit) }
        guard sawContactReport || !contacts.isEmpty || touchKeyReleased else { return }
        matchContacts(into: &table)
    }

    private mutating func closeContact(limit: Int) {
        if contactHasPosition && contacts.count < limit { contacts.append(contact) }
        contact = RawContact()
        contactHasPosition = false
    }

    /// Feeds the frame's contacts into the slots: matched ones continue, unmatched previous ones end,
    /// new ones take the lowest free slot with a fresh synthetic tracking id.
    private mutating func matchContacts(into table: inout ContactTable) {
        previousPoints.removeAll(keepingCapacity: true)
        previousSlots.removeAll(keepingCapacity: true)
        for slot in table.slots.indices where table.slots[slot].trackingID >= 0 {
            previousSlots.append(slot)
            previousPoints.append(table.mapper.millimeters(table.slots[slot].raw.position).point)
            slotMatched[slot] = false
        }
        currentPoints.removeAll(keepingCapacity: true)
        for contact in contacts { currentPoints.append(table.mapper.millimeters(contact.position).point) }
        matcher.match(previous: previousPoints, current: currentPoints, into: &assignment)
        for index in assignment.indices where assignment[index] >= 0 {
            slotMatched[previousSlots[assignment[index]]] = true
        }
        for slot in previousSlots where !slotMatched[slot] { table.setTrackingID(-1, slot: slot) }
        for index in contacts.indices {
            let matched = assignment[index]
            if matched >= 0 {
                table.slots[previousSlots[matched]].raw = contacts[index]
                continue
            }
            guard let slot = table.slots.firstIndex(where: { $0.trackingID < 0 }) else { continue }
            table.slots[slot].raw = contacts[index]
            table.setTrackingID(table.takeSyntheticTrackingID(), slot: slot)
        }
    }
}

/// Single touch: `ABS_X`/`ABS_Y`, `ABS_PRESSURE`, and `BTN_TOUCH` (`BTN_TOOL_FINGER` when the device has
/// no `BTN_TOUCH`) give one touch in slot 0.
struct SingleTouchSource {
    /// The touch key is held.
    private var touchDown = false

    mutating func apply(_ events: [InputEvent], to table: inout ContactTable) {
        guard !table.slots.isEmpty else { return }
        var touchKey = touchDown
        for event in events {
            switch event.type {
            case EventType.abs:
                switch event.code {
                case AbsCode.x: table.slots[0].raw.position.x = event.value
                case AbsCode.y: table.slots[0].raw.position.y = event.value
                case AbsCode.pressure: table.slots[0].raw.pressure = event.value
                default: break
                }
            case EventType.key:
                table.applyKey(event.code, event.value)
                if event.code == table.features.singleTouchKey { touchKey = event.value != 0 }
            case EventType.msc:
                if event.code == MscCode.timestamp { table.noteScanTime(event.value) }
            default:
                break
            }
        }
        touchDown = touchKey
        if touchKey && table.slots[0].trackingID < 0 {
            table.setTrackingID(table.takeSyntheticTrackingID(), slot: 0)
        } else if !touchKey && table.slots[0].trackingID >= 0 {
            table.setTrackingID(-1, slot: 0)
        }
    }
}
