import MultitouchCore

#if canImport(Glibc)
import Glibc
#endif

/// Builds evdev event streams from finger scenarios, in percent of the surface and virtual time,
/// encoded the way the device's kernel driver would: protocol B (slots, tracking ids, only changed
/// values, slots keeping their values), protocol A (every contact every frame, `SYN_MT_REPORT`),
/// semi-mt (two slots carrying the bounding box), single touch, plus `BTN_TOUCH`, `BTN_TOOL_*`, the
/// legacy `ABS_X`/`ABS_Y` pointer emulation and optionally `MSC_TIMESTAMP`.
///
/// Changes are staged (`down`, `move`, `up`, `setPalm`, ...) and become one evdev frame at the current
/// virtual time with `frame()`; `advance(ms:)` moves the time. The convenience verbs (`move(finger:...
/// steps:)`, `tap`) advance and emit frames themselves. Deterministic: no randomness, no clock.
///
/// ```swift
/// var script = TouchScripter(device: TestDevices.touchscreen())
/// script.down(finger: 0, x: 40, y: 50)
/// script.down(finger: 1, x: 60, y: 50)
/// script.frame()
/// script.move(fingers: [(0, 30, 50), (1, 70, 50)], steps: 10, durationMs: 100)
/// script.up(finger: 0); script.up(finger: 1); script.frame()
/// let events = script.events
/// ```
public struct TouchScripter {
    /// Order in which protocol A contacts are listed in a frame (the protocol says nothing about it).
    public enum ContactOrder: Hashable, Sendable {
        /// Order of landing.
        case landing
        /// Reverse order of landing.
        case reversed
        /// Landing order rotated by one more place every frame.
        case rotating
    }

    /// One finger as staged: position in percent of each axis, pressure in percent of the pressure
    /// axis, shape in device units.
    public struct Finger: Hashable, Sendable {
        public var x: Double
        public var y: Double
        public var pressure: Double
        public var touchMajor: Int32?
        public var touchMinor: Int32?
        public var orientation: Int32?
        public var isPalm = false
    }

    /// Values a slot last sent; the kernel keeps them for the slot, so unchanged ones are not re-sent.
    private struct SlotValues: Hashable {
        var trackingID: Int32 = -1
        var values: [UInt16: Int32] = [:]
    }

    public let device: DeviceDescription
    public private(set) var time: Timestamp
    public private(set) var events: [InputEvent] = []
    /// Emit `MSC_TIMESTAMP` in every frame (when the device declares it).
    public var emitsTimestamps: Bool
    public var contactOrder: ContactOrder = .landing
    /// When set, `BTN_TOOL_*` reports this many fingers whatever is down (as the N-Trig panel holds
    /// `BTN_TOOL_DOUBLETAP` for one finger); nil reports the fingers down.
    public var toolFingerCountOverride: Int?

    private let start: Timestamp
    private let kind: MultitouchProtocol
    private let slotCount: Int
    private var fingers: [Int: Finger] = [:]
    /// Fingers down, in landing order.
    private var landing: [Int] = []
    /// Protocol B: the slot each finger occupies (fingers beyond the slots have none).
    private var slotOfFinger: [Int: Int] = [:]
    private var trackingOfFinger: [Int: Int32] = [:]
    /// Semi-mt: tracking ids of the two bounding-box slots while they are in use.
    private var semiMTTracking: [Int32?] = [nil, nil]
    private var emittedSlots: [SlotValues]
    private var currentSlot = 0
    private var keys: [UInt16: Int32] = [:]
    private var legacyAxes: [UInt16: Int32] = [:]
    private var nextTrackingID: Int32 = 100
    private var frameCount = 0
    private var protocolAHadContacts = false
    /// Millimetres per percent of each axis, for the millimetre verbs.
    private let millimetersPerPercent: (x: Double, y: Double)
    /// Physical buttons (`BTN_LEFT`...) staged for the next frame.
    private var buttons: [UInt16: Int32] = [:]

    public init(
        device: DeviceDescription, start: Timestamp = Timestamp(seconds: 1000, microseconds: 0),
        emitsTimestamps: Bool = false
    ) {
        self.device = device
        self.start = start
        time = start
        self.emitsTimestamps = emitsTimestamps
        kind = device.multitouchProtocol
        slotCount = kind == .b ? min(device.slotCount, 256) : 1
        emittedSlots = Array(repeating: SlotValues(), count: slotCount)
        let size = CoordinateMapper(description: device).sizeMillimeters
        millimetersPerPercent = (size.width / 100, size.height / 100)
    }

    // MARK: Staging

    /// Fingers down, in landing order.
    public var activeFingers: [Int] { landing }

    /// The staged state of `finger`, nil when it is up.
    public func finger(_ finger: Int) -> Finger? { fingers[finger] }

    /// Puts `finger` down at (`x`, `y`) percent; takes effect with the next `frame()`. Putting down a
    /// finger that is already down moves it.
    public mutating func down(
        finger: Int, x: Double, y: Double, pressure: Double = 50, touchMajor: Int32? = nil, touchMinor: Int32? = nil,
        orientation: Int32? = nil
    ) {
        if fingers[finger] == nil { landing.append(finger) }
        fingers[finger] = Finger(
            x: x, y: y, pressure: pressure, touchMajor: touchMajor, touchMinor: touchMinor, orientation: orientation)
    }

    /// Moves `finger` to (`x`, `y`) percent at the next `frame()`.
    public mutating func move(finger: Int, x: Double, y: Double) {
        fingers[finger]?.x = x
        fingers[finger]?.y = y
    }

    /// Marks `finger` as a palm (`ABS_MT_TOOL_TYPE` `MT_TOOL_PALM`) or a finger again.
    public mutating func setPalm(finger: Int, _ isPalm: Bool = true) {
        fingers[finger]?.isPalm = isPalm
    }

    /// Lifts `finger` at the next `frame()`.
    public mutating func up(finger: Int) {
        guard fingers.removeValue(forKey: finger) != nil else { return }
        landing.removeAll { $0 == finger }
        slotOfFinger[finger] = nil
        trackingOfFinger[finger] = nil
    }

    /// Presses a physical button (`BTN_LEFT` for a clickpad click) at the next `frame()`; a device
    /// without the key ignores it.
    public mutating func press(button: UInt16 = KeyCode.btnLeft) { buttons[button] = 1 }

    /// Releases a physical button at the next `frame()`.
    public mutating func release(button: UInt16 = KeyCode.btnLeft) { buttons[button] = 0 }

    /// Moves virtual time forward.
    public mutating func advance(ms: Double) { time = time.adding(milliseconds: ms) }

    // MARK: Millimetres

    /// Percent of the surface for a position in millimetres from the surface's top-left corner (the
    /// size `CoordinateMapper` gives the device: its resolution, else the nominal fallback).
    public func percent(millimeters mm: Point) -> (x: Double, y: Double) {
        (mm.x / millimetersPerPercent.x, mm.y / millimetersPerPercent.y)
    }

    /// Where `finger` is staged, in millimetres; nil when it is up.
    public func millimeters(of finger: Int) -> Point? {
        fingers[finger].map { Point(x: $0.x * millimetersPerPercent.x, y: $0.y * millimetersPerPercent.y) }
    }

    /// `down(finger:x:y:)` at a position in millimetres.
    public mutating func down(
        finger: Int, mm: Point, pressure: Double = 50, touchMajor: Int32? = nil, touchMinor: Int32? = nil
    ) {
        let p = percent(millimeters: mm)
        down(finger: finger, x: p.x, y: p.y, pressure: pressure, touchMajor: touchMajor, touchMinor: touchMinor)
    }

    /// `move(finger:x:y:)` to a position in millimetres.
    public mutating func move(finger: Int, mm: Point) {
        let p = percent(millimeters: mm)
        move(finger: finger, x: p.x, y: p.y)
    }

    // MARK: Convenience verbs

    /// `steps` frames, each `durationMs / steps` later, moving `finger` in a straight line to (`x`, `y`).
    public mutating func move(finger: Int, toX x: Double, y: Double, steps: Int = 10, durationMs: Double = 100) {
        move(fingers: [(finger, x, y)], steps: steps, durationMs: durationMs)
    }

    /// Same as `move(finger:toX:y:steps:durationMs:)`, with the target as a point in percent.
    public mutating func move(finger: Int, to target: (x: Double, y: Double), steps: Int = 10, durationMs: Double = 100)
    {
        move(fingers: [(finger, target.x, target.y)], steps: steps, durationMs: durationMs)
    }

    /// `steps` frames moving several fingers together in straight lines to their targets.
    public mutating func move(
        fingers targets: [(finger: Int, x: Double, y: Double)], steps: Int = 10, durationMs: Double = 100
    ) {
        let count = max(1, steps)
        let origins = targets.map { target in fingers[target.finger].map { ($0.x, $0.y) } }
        for step in 1...count {
            let t = Double(step) / Double(count)
            for (index, target) in targets.enumerated() {
                guard let origin = origins[index] else { continue }
                move(
                    finger: target.finger, x: origin.0 + (target.x - origin.0) * t,
                    y: origin.1 + (target.y - origin.1) * t)
            }
            advance(ms: durationMs / Double(count))
            frame()
        }
    }

    /// `steps` frames turning, scaling and moving `fingers` as one rigid shape about `center` (percent),
    /// in millimetres so that the motion is a true rotation on a non-square surface: at step k of n each
    /// finger is at center + translation * t + scale^t * R(rotation * t) * (start - center), t = k/n.
    /// Exactly what a pinch/rotate recognizer should report back.
    public mutating func transform(
        fingers moving: [Int], center: (x: Double, y: Double), scale: Double = 1, rotationDegrees: Double = 0,
        translation: (x: Double, y: Double) = (0, 0), steps: Int = 10, durationMs: Double = 100
    ) {
        let size = CoordinateMapper(description: device).sizeMillimeters
        let mmPerPercent = (x: size.width / 100, y: size.height / 100)
        let starts = moving.map { finger in fingers[finger].map { ($0.x, $0.y) } }
        let count = max(1, steps)
        for step in 1...count {
            let t = Double(step) / Double(count)
            let angle = rotationDegrees * t * Double.pi / 180
            let factor = scale > 0 ? pow(scale, t) : 1
            let (sine, cosine) = (sin(angle), cos(angle))
            for (index, finger) in moving.enumerated() {
                guard let start = starts[index] else { continue }
                let dx = (start.0 - center.x) * mmPerPercent.x
                let dy = (start.1 - center.y) * mmPerPercent.y
                let rx = factor * (cosine * dx - sine * dy)
                let ry = factor * (sine * dx + cosine * dy)
                move(
                    finger: finger, x: center.x + translation.x * t + rx / mmPerPercent.x,
                    y: center.y + translation.y * t + ry / mmPerPercent.y)
            }
            advance(ms: durationMs / Double(count))
            frame()
        }
    }

    /// A tap: down, a frame, `durationMs` later up, a frame.
    public mutating func tap(finger: Int = 0, x: Double, y: Double, durationMs: Double = 50) {
        down(finger: finger, x: x, y: y)
        frame()
        advance(ms: durationMs)
        up(finger: finger)
        frame()
    }

    /// Fingers land together at their positions (percent), `afterMs` after the previous frame, in
    /// one frame.
    public mutating func land(_ touches: [(finger: Int, x: Double, y: Double)], afterMs: Double = 0) {
        if afterMs != 0 { advance(ms: afterMs) }
        for t in touches { down(finger: t.finger, x: t.x, y: t.y) }
        frame()
    }

    /// Fingers lift together, `afterMs` after the previous frame, in one frame.
    public mutating func lift(_ lifted: Int..., afterMs: Double) {
        advance(ms: afterMs)
        for finger in lifted { up(finger: finger) }
        frame()
    }

    /// A finger held still at (`x`, `y`) percent: it lands, `frames` frames follow `everyMs` apart (a
    /// panel reporting a resting finger), and it lifts in the frame after the last.
    public mutating func hold(finger: Int, x: Double, y: Double, frames: Int, everyMs: Double) {
        down(finger: finger, x: x, y: y)
        frame()
        for _ in 0..<frames {
            advance(ms: everyMs)
            frame()
        }
        up(finger: finger)
        frame()
    }

    /// Returns the events built so far and starts a new list (time and device state carry on).
    public mutating func takeEvents() -> [InputEvent] {
        defer { events.removeAll() }
        return events
    }

    // MARK: Encoding

    /// Emits the staged state as one evdev frame at the current time (always ends with `SYN_REPORT`,
    /// even when nothing changed).
    public mutating func frame() {
        switch kind {
        case .b: encodeProtocolB()
        case .a: encodeProtocolA()
        case .singleTouch: encodeSingleTouch()
        }
        let fingersDown = landing.filter { fingers[$0]?.isPalm == false }
        setKey(KeyCode.btnTouch, fingersDown.isEmpty ? 0 : 1)
        encodeToolKeys(count: fingersDown.isEmpty ? 0 : toolFingerCountOverride ?? fingersDown.count)
        for (code, value) in buttons.sorted(by: { $0.key < $1.key }) { setKey(code, value) }
        if kind != .singleTouch, let primary = fingersDown.first, let state = fingers[primary] {
            setLegacy(AbsCode.x, raw(state.x, AbsCode.x))
            setLegacy(AbsCode.y, raw(state.y, AbsCode.y))
            setLegacy(AbsCode.pressure, raw(state.pressure, AbsCode.pressure))
        }
        if emitsTimestamps && device.has(EventType.msc, MscCode.timestamp) {
            let elapsed = UInt32(truncatingIfNeeded: time.microseconds &- start.microseconds)
            emit(EventType.msc, MscCode.timestamp, Int32(bitPattern: elapsed))
        }
        emit(EventType.syn, SynCode.report, 0)
        frameCount += 1
    }

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }

    /// Percent of an axis in device units, rounded and clamped to the axis.
    private func raw(_ percent: Double, _ code: UInt16) -> Int32 {
        guard let axis = device.axes[code] else { return 0 }
        let value = (Double(axis.minimum) + percent / 100 * axis.span).rounded()
        guard value.isFinite else { return axis.minimum }
        return Int32(min(Double(axis.maximum), max(Double(axis.minimum), value)))
    }

    private mutating func setKey(_ code: UInt16, _ value: Int32) {
        guard device.has(EventType.key, code), keys[code, default: 0] != value else { return }
        keys[code] = value
        emit(EventType.key, code, value)
    }

    private mutating func setLegacy(_ code: UInt16, _ value: Int32) {
        guard device.axes[code] != nil, legacyAxes[code] != value else { return }
        legacyAxes[code] = value
        emit(EventType.abs, code, value)
    }

    /// `BTN_TOOL_FINGER`...`QUINTTAP`: exactly the one for the count is held (kernel
    /// input_mt_report_finger_count); five or more fingers hold QUINTTAP.
    private mutating func encodeToolKeys(count: Int) {
        let tools: [(UInt16, Int)] = [
            (KeyCode.btnToolFinger, 1), (KeyCode.btnToolDoubleTap, 2), (KeyCode.btnToolTripleTap, 3),
            (KeyCode.btnToolQuadTap, 4), (KeyCode.btnToolQuintTap, 5),
        ]
        for (code, n) in tools {
            let held = n == 5 ? count >= 5 : count == n
            setKey(code, held ? 1 : 0)
        }
    }

    private mutating func takeTrackingID() -> Int32 {
        let id = nextTrackingID
        let maximum = device.axes[AbsCode.mtTrackingID]?.maximum ?? 65535
        nextTrackingID = id >= maximum ? 0 : id + 1
        return id
    }

    /// Values a contact sends on the device's axes.
    private func contactValues(_ state: Finger) -> [(UInt16, Int32)] {
        var values: [(UInt16, Int32)] = [
            (AbsCode.mtPositionX, raw(state.x, AbsCode.mtPositionX)),
            (AbsCode.mtPositionY, raw(state.y, AbsCode.mtPositionY)),
        ]
        if device.axes[AbsCode.mtPressure] != nil {
            values.append((AbsCode.mtPressure, raw(state.pressure, AbsCode.mtPressure)))
        }
        if device.axes[AbsCode.mtTouchMajor] != nil { values.append((AbsCode.mtTouchMajor, state.touchMajor ?? 0)) }
        if device.axes[AbsCode.mtTouchMinor] != nil { values.append((AbsCode.mtTouchMinor, state.touchMinor ?? 0)) }
        if device.axes[AbsCode.mtOrientation] != nil { values.append((AbsCode.mtOrientation, state.orientation ?? 0)) }
        if device.axes[AbsCode.mtToolType] != nil {
            values.append((AbsCode.mtToolType, state.isPalm ? MTToolType.palm : MTToolType.finger))
        }
        return values
    }

    private mutating func encodeProtocolB() {
        // What each slot should carry now: (tracking id, values).
        var desired: [(Int32, [(UInt16, Int32)])?] = Array(repeating: nil, count: slotCount)
        if device.isSemiMT {
            let carried = landing.compactMap { fingers[$0] }
            if carried.isEmpty {
                semiMTTracking = [nil, nil]
            } else {
                if semiMTTracking[0] == nil { semiMTTracking[0] = takeTrackingID() }
                if carried.count >= 2 {
                    if semiMTTracking[1] == nil { semiMTTracking[1] = takeTrackingID() }
                } else {
                    semiMTTracking[1] = nil
                }
                // One finger is itself; more are the bounding box corners (min, max), as the
                // kernel's semi-mt drivers report them.
                var low = carried[0]
                var high = carried[0]
                for state in carried {
                    low.x = min(low.x, state.x)
                    low.y = min(low.y, state.y)
                    high.x = max(high.x, state.x)
                    high.y = max(high.y, state.y)
                }
                if let id = semiMTTracking[0] { desired[0] = (id, contactValues(low)) }
                if slotCount > 1, let id = semiMTTracking[1] { desired[1] = (id, contactValues(high)) }
            }
        } else {
            for finger in landing where slotOfFinger[finger] == nil {
                let used = Set(slotOfFinger.values)
                guard let free = (0..<slotCount).first(where: { !used.contains($0) }) else { break }
                slotOfFinger[finger] = free
                trackingOfFinger[finger] = takeTrackingID()
            }
            for (finger, slot) in slotOfFinger {
                guard let state = fingers[finger], let id = trackingOfFinger[finger] else { continue }
                desired[slot] = (id, contactValues(state))
            }
        }
        for slot in 0..<slotCount {
            switch desired[slot] {
            case nil:
                if emittedSlots[slot].trackingID >= 0 {
                    selectSlot(slot)
                    emit(EventType.abs, AbsCode.mtTrackingID, -1)
                    emittedSlots[slot].trackingID = -1
                }
            case (let id, let values)?:
                if emittedSlots[slot].trackingID != id {
                    selectSlot(slot)
                    emit(EventType.abs, AbsCode.mtTrackingID, id)
                    emittedSlots[slot].trackingID = id
                }
                // A slot starts with every value 0, as in the kernel, which drops values that do not change.
                for (code, value) in values where emittedSlots[slot].values[code, default: 0] != value {
                    selectSlot(slot)
                    emit(EventType.abs, code, value)
                    emittedSlots[slot].values[code] = value
                }
            }
        }
    }

    /// `ABS_MT_SLOT` only when it changes: slot 0 is implied at the start, as with the kernel.
    private mutating func selectSlot(_ slot: Int) {
        guard slot != currentSlot else { return }
        currentSlot = slot
        emit(EventType.abs, AbsCode.mtSlot, Int32(slot))
    }

    private mutating func encodeProtocolA() {
        var order = landing
        switch contactOrder {
        case .landing: break
        case .reversed: order.reverse()
        case .rotating:
            if !order.isEmpty {
                let shift = frameCount % order.count
                order = Array(order[shift...] + order[..<shift])
            }
        }
        var contacts = 0
        for finger in order {
            guard let state = fingers[finger] else { continue }
            for (code, value) in contactValues(state) { emit(EventType.abs, code, value) }
            emit(EventType.syn, SynCode.mtReport, 0)
            contacts += 1
        }
        if contacts == 0 && protocolAHadContacts { emit(EventType.syn, SynCode.mtReport, 0) }
        protocolAHadContacts = contacts > 0
    }

    private mutating func encodeSingleTouch() {
        guard let primary = landing.first, let state = fingers[primary] else { return }
        setLegacy(AbsCode.x, raw(state.x, AbsCode.x))
        setLegacy(AbsCode.y, raw(state.y, AbsCode.y))
        setLegacy(AbsCode.pressure, raw(state.pressure, AbsCode.pressure))
    }
}
