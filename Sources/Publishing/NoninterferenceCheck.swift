import Configuration
import Gestures
import MultitouchCore
import Recordings
import TouchPipeline
import TouchRouting
import TouchScripting
import WireProtocol

/// The differential check of DESIGN.md invariant 11 (noninterference): for a recording and a layout of
/// programs (an exclusive PIN pad, whole-device subscribers with and without predictions and frames, a
/// map region, an observer with the `observe` right), rehearse the recording as it is and once more with
/// every contact that became a secure touch deleted from it (`RecordedDevice.deletingContacts`); every
/// client but the pad's must receive the same bytes, and the devices' `stats` figures must be equal.
/// Layouts are drawn from a seed, the pad centred on where one of the recording's touches began (so the
/// check has something to hide). Pure and deterministic.
public enum NoninterferenceCheck {
    /// One layout's outcome.
    public struct Outcome: Hashable, Sendable {
        public var seed: UInt64
        /// Secure contacts deleted (0: the pad caught no touch; nothing to compare).
        public var secureContacts: Int
        /// Bytes compared over the other clients.
        public var comparedBytes: Int
        /// Why the layout was not compared (nil: it was); a skip is not a pass.
        public var skipped: String?
        /// The first difference per client, empty when none.
        public var differences: [String]
    }

    /// Why the recording cannot be checked at all (nil: it can): the contacts of a device without slots
    /// cannot be deleted one by one, and a semi-mt device's two slots are a bounding box, not contacts.
    public static func unsupported(_ recording: Recording) -> String? {
        for device in recording.devices {
            if device.description.multitouchProtocol != .b {
                return
                    "\(device.description.name): protocol \(device.description.multitouchProtocol.rawValue), no slots to delete contacts from"
            }
            if device.description.kind == .semiMTTouchpad {
                return "\(device.description.name): semi-mt (a bounding box, not contacts)"
            }
            // A touchpad whose BTN_TOOL_*TAP keys count more fingers than it has slots: the count takes
            // in fingers no slot carries, and no edit of the recording can take one out of it.
            let tools: [(UInt16, Int)] = [
                (KeyCode.btnToolDoubleTap, 2), (KeyCode.btnToolTripleTap, 3), (KeyCode.btnToolQuadTap, 4),
                (KeyCode.btnToolQuintTap, 5),
            ]
            if device.description.deviceClass != .touchscreen,
                let most = tools.filter({ device.description.has(EventType.key, $0.0) }).map(\.1).max(),
                most > device.description.slotCount
            {
                return
                    "\(device.description.name): its tool keys count up to \(most) fingers on \(device.description.slotCount) slots"
            }
        }
        return nil
    }

    /// Checks `layouts` layouts drawn from `seed` on.
    public static func run(
        recording: Recording, settings: PipelineSettings = .init(), layouts: Int, seed: UInt64 = 1
    ) -> [Outcome] {
        guard unsupported(recording) == nil, let first = recording.devices.first else { return [] }
        let device = DevicePipeline(deviceID: 1, description: first.description, settings: settings).device
        let info = PipelineMessages.deviceInfo(device)
        let landings = Self.landings(recording, settings: settings)
        return (0..<max(0, layouts)).map { k in
            var random = SplitMix64(seed: seed &+ UInt64(k) &* 0x9E37_79B9)
            let clients = layout(&random, width: info.width, height: info.height, landings: landings)
            return check(recording, settings: settings, clients: clients, seed: seed &+ UInt64(k))
        }
    }

    /// The pad's client (its bytes are the only ones allowed to differ).
    public static let padClient = 1

    /// One comparison: rehearse as is, delete the secure contacts, rehearse again, compare.
    public static func check(
        _ recording: Recording, settings: PipelineSettings, clients: [Rehearsal.Client], seed: UInt64
    ) -> Outcome {
        let original = Rehearsal.run(recording: recording, settings: settings, clients: clients)
        var outcome = Outcome(seed: seed, secureContacts: 0, comparedBytes: 0, skipped: nil, differences: [])
        var edited = recording
        for (index, secure) in original.secureContacts.sorted(by: { $0.key < $1.key }) {
            let both = secure.intersection(original.publicContacts[index] ?? [])
            guard both.isEmpty else {
                // A contact that was secure and public (a touchpad sensor jump re-hit-tested, or a tracking
                // id the device reused): deleting it would delete a public touch too.
                outcome.skipped = "tracking ids \(both.sorted()) were both secure and public touches"
                return outcome
            }
            outcome.secureContacts += secure.count
            edited.devices[index] = edited.devices[index].deletingContacts(trackingIDs: secure)
        }
        guard outcome.secureContacts > 0 else { return outcome }
        let deleted = Rehearsal.run(recording: edited, settings: settings, clients: clients)
        for client in clients where client.id != padClient {
            let a = original.bytes[client.id] ?? []
            let b = deleted.bytes[client.id] ?? []
            outcome.comparedBytes += a.count
            if a != b { outcome.differences.append("client \(client.id): \(firstDifference(a, b))") }
        }
        if original.deviceStatistics != deleted.deviceStatistics {
            outcome.differences.append(
                "stats: \(original.deviceStatistics) vs \(deleted.deviceStatistics) without the secure touches")
        }
        return outcome
    }

    /// The programs of one layout: 1 the PIN pad (exclusive, no `observe`), 2 a whole-device subscriber,
    /// 3 one predicting at 16 ms, 4 one frame-aligned at 60 Hz predicting at 8 ms, 5 a map region under
    /// the pad (predicting at 33 ms, frame-aligned, momentum), 6 an observer region over everything with
    /// the `observe` right.
    static func layout(
        _ random: inout SplitMix64, width: Double, height: Double, landings: [Point]
    )
        -> [Rehearsal.Client]
    {
        let side = min(width, height)
        let centre =
            landings.isEmpty ? Point(x: width / 2, y: height / 2) : landings[random.next(below: landings.count)]
        let padWidth = side * (0.05 + 0.3 * random.fraction())
        let padHeight = side * (0.05 + 0.3 * random.fraction())
        let pad = Region(
            id: "pin",
            shape: .rectangle(
                RegionRect(
                    x: centre.x - padWidth * random.fraction(), y: centre.y - padHeight * random.fraction(),
                    width: padWidth, height: padHeight)),
            z: 50 + random.next(below: 50), options: RegionOptions(exclusive: true))
        let mapX = width * 0.5 * random.fraction()
        let mapY = height * 0.5 * random.fraction()
        var momentum = GestureSettings()
        _ = momentum.set("momentum", flag: true)
        let map = Region(
            id: "map",
            shape: .rectangle(
                RegionRect(
                    x: mapX, y: mapY, width: (width - mapX) * (0.5 + 0.5 * random.fraction()),
                    height: (height - mapY) * (0.5 + 0.5 * random.fraction()))),
            z: random.next(below: 50), options: RegionOptions(settings: momentum))
        let everything = Region(
            id: "fx", shape: .rectangle(RegionRect(x: -1, y: -1, width: width + 2, height: height + 2)),
            mode: .observer)
        var regionsOnly = AccessGrant.everything
        regionsOnly.rights.remove(.observe)
        return [
            Rehearsal.Client(id: padClient, grant: regionsOnly, regions: [pad]),
            Rehearsal.Client(id: 2),
            Rehearsal.Client(id: 3, predictMilliseconds: 16),
            Rehearsal.Client(id: 4, predictMilliseconds: 8, framePeriodMicroseconds: 16_667),
            Rehearsal.Client(
                id: 5, grant: regionsOnly, predictMilliseconds: 33, framePeriodMicroseconds: 16_667, regions: [map]),
            Rehearsal.Client(id: 6, regions: [everything]),
        ]
    }

    /// Where the recording's touches began (first device), in its published space.
    static func landings(_ recording: Recording, settings: PipelineSettings) -> [Point] {
        var points: [Point] = []
        Replay.run(recording: recording, settings: settings) { batch in
            for case .frame(let f) in batch where f.device == 1 {
                for t in f.frame.touches where t.phase == .began { points.append(t.location) }
            }
        }
        return points
    }

    /// Where two byte streams first differ, as the two lines there.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let la = a.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let lb = b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for i in 0..<max(la.count, lb.count) {
            let x = i < la.count ? String(decoding: la[i], as: UTF8.self) : "(end)"
            let y = i < lb.count ? String(decoding: lb[i], as: UTF8.self) : "(end)"
            if x != y { return "line \(i + 1): \(x.prefix(300)) | without the secure touches: \(y.prefix(300))" }
        }
        return "same lines"
    }
}

extension SplitMix64 {
    /// 0 ..< 1.
    mutating func fraction() -> Double { Double.random(in: 0..<1, using: &self) }
    /// 0 ..< n (0 when n <= 1).
    mutating func next(below n: Int) -> Int { n <= 1 ? 0 : Int.random(in: 0..<n, using: &self) }
}
