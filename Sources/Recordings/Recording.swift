import MultitouchCore

/// One device's part of a recording: its description and its events in file order.
public struct RecordedDevice: Hashable, Sendable {
    public var description: DeviceDescription
    public var events: [InputEvent]

    public init(description: DeviceDescription, events: [InputEvent]) {
        self.description = description
        self.events = events
    }
}

/// A parsed recording: evemu (one device) or libinput record (one or more devices).
public struct Recording: Hashable, Sendable {
    public enum Format: String, Hashable, Sendable { case evemu, libinputRecord = "libinput-record" }

    public var format: Format
    public var devices: [RecordedDevice]
    /// Things the reader noticed and the replay must report (e.g. a trailing partial frame it dropped).
    public var notes: [String]

    public init(format: Format, devices: [RecordedDevice], notes: [String] = []) {
        self.format = format
        self.devices = devices
        self.notes = notes
    }
}

/// A recording that cannot be read: names the file, the line (1-based; 0 when the problem is the whole
/// file) and what was expected.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

extension RecordedDevice {
    /// The device's input with every protocol-B contact whose kernel tracking id is in `trackingIDs`
    /// taken out, as if those fingers had never touched: each such contact's `ABS_MT_*` events (its
    /// tracking id, the values while it lasts, its end) are removed, every other event (slot
    /// selections, other contacts, keys, `MSC_TIMESTAMP`, `SYN_REPORT`) stays at its time. The other
    /// side of the differential noninterference check (DESIGN.md invariant 11). Two kernel rules keep
    /// the rest as it was: a contact that a deleted one replaced in its slot (a new tracking id without
    /// -1) ends there still, and a slot's values carry over to its next contact, so a contact that
    /// begins after a deleted one in the same slot is given the values the slot then held. A device
    /// without slots (protocol A, single touch) is returned unchanged.
    public func deletingContacts(trackingIDs: Set<Int32>) -> RecordedDevice {
        guard !trackingIDs.isEmpty, description.axes[AbsCode.mtSlot] != nil else { return self }
        var kept: [InputEvent] = []
        kept.reserveCapacity(events.count)
        var slot: Int32 = 0
        /// The slot selected in the kept stream (a kept event of another slot needs its selection).
        var keptSlot: Int32 = 0
        var contact: [Int32: Int32] = [:]
        /// Each slot's values as the original stream left them, and as the kept stream did.
        var values: [Int32: [UInt16: Int32]] = [:]
        var keptValues: [Int32: [UInt16: Int32]] = [:]
        func keep(_ event: InputEvent) {
            if event.type == EventType.abs && event.code == AbsCode.mtSlot {
                keptSlot = event.value
            } else if event.type == EventType.abs, (AbsCode.mtSlot...0x3f).contains(event.code) {
                if slot != keptSlot {
                    kept.append(InputEvent(time: event.time, type: EventType.abs, code: AbsCode.mtSlot, value: slot))
                    keptSlot = slot
                }
                if event.code != AbsCode.mtTrackingID { keptValues[slot, default: [:]][event.code] = event.value }
            }
            kept.append(event)
        }
        for event in events {
            // ABS_MT_* is 0x2f (ABS_MT_SLOT) ... 0x3f.
            guard event.type == EventType.abs, (AbsCode.mtSlot...0x3f).contains(event.code) else {
                keep(event)
                continue
            }
            if event.code == AbsCode.mtSlot {
                slot = event.value
                keep(event)
                continue
            }
            if event.code == AbsCode.mtTrackingID {
                let ending = contact[slot]
                contact[slot] = event.value >= 0 ? event.value : nil
                let endsDeleted = ending.map(trackingIDs.contains) == true
                if event.value >= 0 && trackingIDs.contains(event.value) {
                    // A deleted contact replaces a kept one: the kept one ends here all the same.
                    if ending != nil, !endsDeleted {
                        keep(InputEvent(time: event.time, type: event.type, code: event.code, value: -1))
                    }
                    continue
                }
                if event.value < 0 && endsDeleted { continue }
                keep(event)
                if event.value >= 0 {
                    // A kept contact begins: the slot's values as they stand (some set by deleted contacts).
                    for (code, value) in (values[slot] ?? [:]).sorted(by: { $0.key < $1.key })
                    where keptValues[slot]?[code] != value {
                        keep(InputEvent(time: event.time, type: EventType.abs, code: code, value: value))
                    }
                }
                continue
            }
            values[slot, default: [:]][event.code] = event.value
            if let id = contact[slot], trackingIDs.contains(id) { continue }
            keep(event)
        }
        return RecordedDevice(description: description, events: kept)
    }
}
