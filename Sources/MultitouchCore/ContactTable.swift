/// The state every kind of contact source shares (libinput's `struct evdev_device` beside its
/// per-kind dispatch): the slots with their tracking ids and raw values, the published touches, the
/// tool keys and click button, palm cancellation, touchpad sensor-jump detection, tap counts, the unit
/// conversions and the frame's output. A `ContactSource` writes a frame's events into it; the tracker
/// then calls `finishFrame`. The rules are documented on `ContactTracker`.
struct ContactTable {
    let mapper: CoordinateMapper
    let features: DeviceFeatures
    private let idSource: TouchIDSource
    /// Tap counts of public touches, and of secure ones apart: a secure tap never makes a public touch
    /// count as its second tap (nor the reverse).
    private var tapCounter: TapCounter
    private var secureTapCounter: TapCounter
    /// Where touches are secure; see `ContactTracker.secureAreas`.
    var secureAreas: (any SecureAreas)?

    var slots: [SlotState]
    /// Slots whose touch is pending or active, in begin order.
    private(set) var order: [Int]
    /// Touches of this frame that are no longer in a slot (ended, cancelled, or began-and-ended).
    private var detached: [Touch]
    /// Ends owed from a touch that began and ended within one frame.
    private(set) var deferredEnds: [Touch]
    private var output: [Touch]
    /// The deferred ends' frame is built here: the frame before it, which shares `output`, is
    /// usually still held by the caller then (both go out in one batch), and each buffer is reused
    /// once its frame is dropped.
    private var deferredOutput: [Touch] = []
    private var frameTime = Timestamp(microseconds: 0)
    private var isResyncFrame = false
    /// Bits 0...4: `BTN_TOOL_FINGER`...`QUINTTAP` held.
    private var toolKeys: UInt8 = 0
    private var lastFingerCount = 0
    /// `BTN_LEFT` is held, and as last published.
    private var buttonPressed = false
    private var publishedButton = false
    private var nextSyntheticTrackingID: Int32 = 0
    /// The device's own time between frames (`MSC_TIMESTAMP`, else event time), for the jump rule.
    private var deviceClock = DeviceClock()

    init(features: DeviceFeatures, mapper: CoordinateMapper, idSource: TouchIDSource, tapCounting: TapCountParameters) {
        self.mapper = mapper
        self.features = features
        self.idSource = idSource
        tapCounter = TapCounter(parameters: tapCounting)
        secureTapCounter = tapCounter
        let count = features.slotCount
        let placeholder = Touch(
            id: 0, slot: 0, trackingID: -1, phase: .ended, location: .zero, previousLocation: .zero,
            millimeters: .zero, normalized: .zero, timestamp: Timestamp(microseconds: 0), type: features.touchType)
        slots = (0..<count).map { index in
            var touch = placeholder
            touch.slot = index
            return SlotState(touch: touch)
        }
        order = []
        order.reserveCapacity(count)
        detached = []
        detached.reserveCapacity(count * 2)
        deferredEnds = []
        deferredEnds.reserveCapacity(count)
        output = []
        output.reserveCapacity(count * 2)
    }

    /// A new frame: its time, and the ends owed from the last one.
    @inline(__always)
    mutating func beginFrame(_ frame: EventFrame) {
        frameTime = frame.time
        isResyncFrame = frame.isResync
        detached.removeAll(keepingCapacity: true)
        if !deferredEnds.isEmpty {
            for var touch in deferredEnds {
                touch.timestamp = frame.time
                detached.append(touch)
            }
            deferredEnds.removeAll(keepingCapacity: true)
        }
    }

    /// Delivers, at once, the ends owed for touches that began and ended within the last frame (see
    /// the type's documentation). Nil when none is owed.
    mutating func takeDeferredEnds() -> TouchFrame? {
        guard !deferredEnds.isEmpty else { return nil }
        detached.removeAll(keepingCapacity: true)
        for slot in order {
            slots[slot].touch.phase = .stationary
            slots[slot].touch.previousLocation = slots[slot].touch.location
        }
        detached.append(contentsOf: deferredEnds)
        deferredEnds.removeAll(keepingCapacity: true)
        lastFingerCount = currentFingerCount()
        swap(&output, &deferredOutput)
        defer { swap(&output, &deferredOutput) }
        return buildFrame(fingerCount: lastFingerCount)
    }

    /// Ends every active touch as `cancelled` at `time` (device removed, grab lost, daemon shutdown, end of
    /// a recording). Returns nil when no touch was active.
    ///
    /// Slots whose contact is still down stay ignored until the kernel ends or replaces it, so a
    /// cancelled touch never comes back under its old id.
    mutating func cancelAll(at time: Timestamp) -> TouchFrame? {
        frameTime = time
        detached.removeAll(keepingCapacity: true)
        for var touch in deferredEnds {
            touch.timestamp = time
            detached.append(touch)
        }
        deferredEnds.removeAll(keepingCapacity: true)
        for index in order {
            switch slots[index].status {
            case .active:
                var touch = slots[index].touch
                touch.phase = .cancelled
                touch.previousLocation = touch.location
                touch.timestamp = time
                detached.append(touch)
            case .pending, .empty, .ignored:
                break
            }
            slots[index].status = .ignored
        }
        order.removeAll(keepingCapacity: true)
        tapCounter.reset()
        secureTapCounter.reset()
        lastFingerCount = 0
        guard !detached.isEmpty else { return nil }
        return buildFrame(fingerCount: 0)
    }

    /// A tracking id event on `slot`: ends the old touch when the id goes away or changes, begins a
    /// pending one for a new id.
    mutating func setTrackingID(_ value: Int32, slot: Int) {
        let old = slots[slot].trackingID
        if value < 0 {
            guard old >= 0 else { return }
            endSlot(slot)
            slots[slot].trackingID = -1
            return
        }
        guard value != old else { return }
        if old >= 0 { endSlot(slot) }
        slots[slot].trackingID = value
        slots[slot].status = .pending
        order.append(slot)
    }

    /// The slot's touch ends now (its values as they stand); the slot becomes empty.
    private mutating func endSlot(_ slot: Int) {
        let phase: TouchPhase = isResyncFrame ? .cancelled : .ended
        switch slots[slot].status {
        case .empty:
            return
        case .ignored:
            break
        case .active:
            let touch = makeTouch(slot: slot, phase: phase)
            if phase == .ended {
                let travel = max(
                    slots[slot].travelMillimeters, touch.millimeterPoint.distance(to: slots[slot].startMillimeters))
                if touch.isSecure {
                    secureTapCounter.touchEnded(
                        at: frameTime, millimeters: touch.millimeters, beganAt: slots[slot].beganAt,
                        travelMillimeters: travel, tapCount: touch.tapCount)
                } else {
                    tapCounter.touchEnded(
                        at: frameTime, millimeters: touch.millimeters, beganAt: slots[slot].beganAt,
                        travelMillimeters: travel, tapCount: touch.tapCount)
                }
            }
            detached.append(touch)
        case .pending:
            // Began and ended within this frame: began now, the end owed to the next delivery.
            var touch = beginTouch(slot: slot)
            detached.append(touch)
            touch.phase = phase
            deferredEnds.append(touch)
        }
        slots[slot].status = .empty
        removeFromOrder(slot)
    }

    private mutating func removeFromOrder(_ slot: Int) {
        if let position = order.firstIndex(of: slot) { order.remove(at: position) }
    }

    /// A key event of any kind of device: the `BTN_TOOL_*` finger-count keys and `BTN_LEFT` (a click).
    mutating func applyKey(_ code: UInt16, _ value: Int32) {
        let down = value != 0
        let bit: UInt8
        switch code {
        case KeyCode.btnLeft:
            buttonPressed = down
            return
        case KeyCode.btnToolFinger: bit = 1 << 0
        case KeyCode.btnToolDoubleTap: bit = 1 << 1
        case KeyCode.btnToolTripleTap: bit = 1 << 2
        case KeyCode.btnToolQuadTap: bit = 1 << 3
        case KeyCode.btnToolQuintTap: bit = 1 << 4
        default: return
        }
        if down { toolKeys |= bit } else { toolKeys &= ~bit }
    }

    /// `MSC_TIMESTAMP` of the frame being parsed: the device's scan time (see `DeviceClock`).
    @inline(__always)
    mutating func noteScanTime(_ value: Int32) { deviceClock.noteScanTime(value) }

    /// A tracking id for a source whose device has none (protocol A, single touch).
    mutating func takeSyntheticTrackingID() -> Int32 {
        let id = nextSyntheticTrackingID
        nextSyntheticTrackingID = id == Int32.max ? 0 : id + 1
        return id
    }

    /// Palm checks, begins, moved/stationary, then the frame (or nil).
    mutating func finishFrame() -> TouchFrame? {
        deviceClock.advance(to: frameTime)
        let deviceTime = deviceClock.now
        var changed = !detached.isEmpty
        var palms = 0
        for slot in slots.indices where slots[slot].status == .ignored && slots[slot].trackingID >= 0 { palms += 1 }
        var position = 0
        while position < order.count {
            let slot = order[position]
            if features.hasToolType && slots[slot].raw.toolType == MTToolType.palm {
                switch slots[slot].status {
                case .active:
                    let touch = makeTouch(slot: slot, phase: .cancelled)
                    detached.append(touch)
                    changed = true
                case .pending, .empty, .ignored:
                    break
                }
                slots[slot].status = .ignored
                palms += 1
                order.remove(at: position)
                continue
            }
            switch slots[slot].status {
            case .pending:
                _ = beginTouch(slot: slot)
                changed = true
            case .active:
                if slots[slot].raw.sameReport(as: slots[slot].published) {
                    slots[slot].touch.phase = .stationary
                    slots[slot].touch.previousLocation = slots[slot].touch.location
                    slots[slot].touch.timestamp = frameTime
                    slots[slot].deviceTime = deviceTime
                } else {
                    let touch = makeTouch(slot: slot, phase: .moved)
                    if isJump(slot: slot, to: touch.millimeterPoint, at: deviceTime) {
                        // A sensor jump is no finger motion: the touch ends where it was and a new one
                        // begins where the sensor now puts it, so gestures re-base instead of following.
                        var ending = slots[slot].touch
                        ending.phase = .ended
                        ending.previousLocation = ending.location
                        ending.timestamp = frameTime
                        detached.append(ending)
                        _ = beginTouch(slot: slot)
                    } else {
                        slots[slot].touch = touch
                        slots[slot].deviceTime = deviceTime
                        slots[slot].published = slots[slot].raw
                        let travel = touch.millimeterPoint.distance(to: slots[slot].startMillimeters)
                        if travel > slots[slot].travelMillimeters { slots[slot].travelMillimeters = travel }
                    }
                    changed = true
                }
            case .empty, .ignored:
                break
            }
            position += 1
        }
        let fingers = fingerCount(palms: palms)
        let buttonChanged = buttonPressed != publishedButton && (!order.isEmpty || !detached.isEmpty)
        guard changed || fingers != lastFingerCount || buttonChanged else { return nil }
        lastFingerCount = fingers
        return buildFrame(fingerCount: fingers)
    }

    private func fingerCount(palms: Int) -> Int {
        var active = order.count
        for touch in detached where !touch.phase.isTerminal { active += 1 }
        guard active > 0 else { return 0 }
        let tools: Int
        if toolKeys & (1 << 4) != 0 {
            tools = 5
        } else if toolKeys & (1 << 3) != 0 {
            tools = 4
        } else if toolKeys & (1 << 2) != 0 {
            tools = 3
        } else if toolKeys & (1 << 1) != 0 {
            tools = 2
        } else if toolKeys & 1 != 0 {
            tools = 1
        } else {
            tools = 0
        }
        // Tool keys count only fingers the slots cannot carry, and never on a direct device.
        guard !features.isDirect, tools > features.slotCount else { return active }
        return max(active, tools - palms)
    }

    private func currentFingerCount() -> Int {
        var palms = 0
        for slot in slots.indices where slots[slot].status == .ignored && slots[slot].trackingID >= 0 { palms += 1 }
        return fingerCount(palms: palms)
    }

    /// libinput's touchpad jump rule (tp_detect_jumps in src/evdev-mt-touchpad.c): scaled to a 12 ms
    /// frame, a motion of more than 20 mm, or 7 mm more than the touch's previous motion, is a jump
    /// (a 2-slot Synaptics pad swapping in another finger: the fdo23890 recording's resting finger
    /// moves 38 mm in one frame). Frames more than 30 ms apart are not judged (irregular reports).
    /// Touchscreens keep every motion: a fast flick is real there. Updates the touch's last motion.
    ///
    /// Time is the device's (`DeviceClock`: `MSC_TIMESTAMP` where the device gives it): frames that
    /// arrive bunched after a stall of the machine are as far apart as the sensor scanned them, so
    /// their ordinary motion is not scaled up into jumps (issue 31).
    private mutating func isJump(slot: Int, to now: MillimeterPoint, at deviceTime: Int64) -> Bool {
        guard !features.isDirect else { return false }
        let reference = 12_000.0
        let last = slots[slot].touch
        let elapsed = Double(deviceTime - slots[slot].deviceTime)
        guard elapsed > 0, elapsed <= 2.5 * reference else {
            slots[slot].lastMotionMillimeters = 0
            return false
        }
        let distance = now.distance(to: last.millimeterPoint) * reference / elapsed
        let previous = slots[slot].lastMotionMillimeters
        slots[slot].lastMotionMillimeters = distance
        guard distance > 20 || distance - previous > 7 else { return false }
        slots[slot].lastMotionMillimeters = 0
        return true
    }

    /// The slot's pending touch begins: a new id, tap count, and its first published state.
    private mutating func beginTouch(slot: Int) -> Touch {
        let raw = slots[slot].raw
        let normalized = mapper.normalized(raw.position)
        let millimeters = mapper.millimeters(raw.position)
        let location = mapper.published(normalized, millimeters)
        let secure = secureAreas?.isSecure(at: location) ?? false
        let tapCount =
            secure
            ? secureTapCounter.touchBegan(at: frameTime, millimeters: millimeters.point)
            : tapCounter.touchBegan(at: frameTime, millimeters: millimeters.point)
        var touch = Touch(
            id: secure ? idSource.takeSecure() : idSource.take(), slot: publishedSlot(kernelSlot: slot, secure: secure),
            trackingID: slots[slot].trackingID, phase: .began, location: location,
            previousLocation: location, millimeters: millimeters.point, normalized: normalized.point,
            timestamp: frameTime,
            tapCount: tapCount, type: features.touchType)
        applyShape(raw, to: &touch)
        slots[slot].touch = touch
        slots[slot].published = raw
        slots[slot].status = .active
        slots[slot].beganAt = frameTime
        slots[slot].deviceTime = deviceClock.now
        slots[slot].startMillimeters = millimeters
        slots[slot].travelMillimeters = 0
        slots[slot].lastMotionMillimeters = 0
        return touch
    }

    /// The slot a beginning touch publishes: the kernel's, unless secure touches can exist (secure
    /// areas set, or a secure touch still down); then the lowest slot no live touch of the same kind
    /// (public or secure) publishes, so a public touch's slot never shows that a secure one is down.
    private func publishedSlot(kernelSlot: Int, secure: Bool) -> Int {
        var secureDown = false
        for s in order where slots[s].status == .active && slots[s].touch.isSecure {
            secureDown = true
            break
        }
        guard secureAreas != nil || secureDown else { return kernelSlot }
        var candidate = 0
        while true {
            var taken = false
            for s in order where s != kernelSlot && slots[s].status == .active {
                let t = slots[s].touch
                if t.isSecure == secure && t.slot == candidate {
                    taken = true
                    break
                }
            }
            if !taken { return candidate }
            candidate += 1
        }
    }

    /// The slot's touch with its current values, `previousLocation` the last published location.
    private func makeTouch(slot: Int, phase: TouchPhase) -> Touch {
        let raw = slots[slot].raw
        var touch = slots[slot].touch
        touch.previousLocation = touch.location
        let normalized = mapper.normalized(raw.position)
        let millimeters = mapper.millimeters(raw.position)
        touch.normalized = normalized.point
        touch.millimeters = millimeters.point
        touch.location = mapper.published(normalized, millimeters)
        touch.phase = phase
        touch.timestamp = frameTime
        applyShape(raw, to: &touch)
        return touch
    }

    @inline(__always)
    private func applyShape(_ raw: RawContact, to touch: inout Touch) {
        let f = features
        if f.hasMajor { touch.majorRadius = Double(max(0, raw.touchMajor)) * 0.5 / mapper.unitsPerMillimeterX }
        if f.hasMinor { touch.minorRadius = Double(max(0, raw.touchMinor)) * 0.5 / mapper.unitsPerMillimeterX }
        if f.orientationMaximum > 0 {
            let radians = Double(raw.orientation) / f.orientationMaximum * (Double.pi / 2)
            touch.orientation = min(Double.pi, max(-Double.pi, radians))
        }
        if f.pressureSpan > 0 {
            let force = (Double(raw.pressure) - f.pressureMinimum) / f.pressureSpan
            touch.force = min(1, max(0, force))
        }
    }

    /// Active touches plus detached ones, sorted by id.
    private mutating func buildFrame(fingerCount: Int) -> TouchFrame {
        output.removeAll(keepingCapacity: true)
        for slot in order { output.append(slots[slot].touch) }
        output.append(contentsOf: detached)
        // Insertion sort: a handful of touches, nearly sorted already (begin order is id order).
        if output.count > 1 {
            for index in 1..<output.count {
                var position = index
                while position > 0 && output[position - 1].id > output[position].id {
                    output.swapAt(position - 1, position)
                    position -= 1
                }
            }
        }
        publishedButton = buttonPressed
        return TouchFrame(time: frameTime, touches: output, fingerCount: fingerCount, isButtonPressed: buttonPressed)
    }
}

/// Per-slot values in device units, as the kernel (or the protocol A matcher) last set them.
struct RawContact: Equatable, Sendable {
    var position = DevicePosition()
    var touchMajor: Int32 = 0
    var touchMinor: Int32 = 0
    var orientation: Int32 = 0
    var pressure: Int32 = 0
    var toolType: Int32 = MTToolType.finger

    /// Same reported shape and position (the tool type is not motion).
    @inline(__always) func sameReport(as other: RawContact) -> Bool {
        position == other.position && touchMajor == other.touchMajor && touchMinor == other.touchMinor
            && orientation == other.orientation && pressure == other.pressure
    }
}

/// Where a slot's touch stands within the tracker.
enum SlotStatus: Sendable {
    /// No contact.
    case empty
    /// A tracking id arrived this frame; the touch begins at the end of the frame.
    case pending
    /// A published touch.
    case active
    /// A contact that is not published (palm, or cancelled by `cancelAll`) until its tracking id ends.
    case ignored
}

/// One slot: the kernel's view (tracking id, raw values) and the published touch.
struct SlotState: Sendable {
    var trackingID: Int32 = -1
    var raw = RawContact()
    var status = SlotStatus.empty
    /// Raw values at the last published state, to tell `moved` from `stationary`.
    var published = RawContact()
    var touch: Touch
    var beganAt = Timestamp(microseconds: 0)
    var startMillimeters = MillimeterPoint.zero
    /// Farthest distance from the start so far, for tap detection.
    var travelMillimeters = 0.0
    /// The touch's last motion scaled to a 12 ms frame (mm), for the jump rule.
    var lastMotionMillimeters = 0.0
    /// `DeviceClock.now` at the touch's last published state, for the jump rule.
    var deviceTime: Int64 = 0

    init(touch: Touch) { self.touch = touch }
}

/// What the tracker needs from a description, looked up once (the description's sets and dictionaries
/// stay off the hot path).
struct DeviceFeatures: Sendable {
    var kind: MultitouchProtocol
    var slotCount: Int
    var slotMinimum: Int
    /// The class the device is served as (chosen once, by the pipeline).
    var deviceKind: DeviceKind
    var touchType: TouchType
    /// A touchscreen: the finger is on the picture.
    var isDirect: Bool
    var hasMajor: Bool
    var hasMinor: Bool
    var hasToolType: Bool
    /// `ABS_MT_ORIENTATION` maximum (a quarter turn), 0 when the device has no usable orientation.
    var orientationMaximum: Double
    var pressureMinimum: Double
    /// Pressure axis span, 0 when the device reports no usable pressure.
    var pressureSpan: Double
    var singleTouchKey: UInt16

    init(_ description: DeviceDescription, kind deviceKind: DeviceKind) {
        kind = description.multitouchProtocol
        slotCount = min(ContactTracker.slotLimit, max(1, description.slotCount))
        slotMinimum = Int(description.axes[AbsCode.mtSlot]?.minimum ?? 0)
        self.deviceKind = deviceKind
        touchType = deviceKind.touchType
        isDirect = touchType == .direct
        let multitouch = kind != .singleTouch
        hasMajor = multitouch && description.axes[AbsCode.mtTouchMajor] != nil
        hasMinor = multitouch && description.axes[AbsCode.mtTouchMinor] != nil
        hasToolType = multitouch && description.axes[AbsCode.mtToolType] != nil
        if multitouch, let axis = description.axes[AbsCode.mtOrientation], axis.maximum > 0 {
            orientationMaximum = Double(axis.maximum)
        } else {
            orientationMaximum = 0
        }
        let pressure = description.axes[multitouch ? AbsCode.mtPressure : AbsCode.pressure]
        pressureMinimum = Double(pressure?.minimum ?? 0)
        pressureSpan = pressure?.span ?? 0
        singleTouchKey = description.has(EventType.key, KeyCode.btnTouch) ? KeyCode.btnTouch : KeyCode.btnToolFinger
    }
}
