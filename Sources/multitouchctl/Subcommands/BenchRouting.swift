import ArgumentParser
import FoundationEssentials
import MultitouchCore
import TouchRouting
import TouchScripting

/// `multitouchctl bench-routing`: the cost of routing touches to many regions (issue 12: 1,000 regions
/// and 10 fingers, cost per began). Synthetic and seeded, so every run routes the same input.
struct BenchRouting: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-routing",
        abstract: "Measure hit-testing and touch routing with many regions (use a release build).",
        discussion: """
            Declares --regions regions from --clients clients on a 1920 x 1080 screen (seeded: tiles and \
            buttons, a tenth passthrough with 16 x 16 masks, a twentieth observers, random z), then times \
            (1) the hit test alone at random points, grid against a walk over every region, and (2) the \
            whole router (binding, per-region gesture sessions, deliveries) on cycles of --fingers fingers \
            landing one per frame, moving for 20 frames and lifting; frames in which a finger lands are \
            also timed on their own. --no-gestures leaves out the gesture sessions. Prints medians of --runs runs. Timing \
            belongs here, never in unit tests.
            """)

    @Option(name: .long, help: "Regions on the screen.")
    var regions: Int = 1000

    @Option(name: .long, help: "Clients the regions are spread over.")
    var clients: Int = 10

    @Option(name: .long, help: "Fingers per cycle.")
    var fingers: Int = 10

    @Option(name: .long, help: "Touch cycles per router run.")
    var cycles: Int = 2000

    @Option(name: .long, help: "Hit tests per hit-test run.")
    var points: Int = 1_000_000

    @Option(name: .long, help: "Timed runs per measurement.")
    var runs: Int = 5

    @Option(name: .long, help: "Random seed.")
    var seed: UInt64 = 12

    @Flag(name: .long, help: "Regions without gesture sessions: the cost of routing alone.")
    var noGestures = false

    func validate() throws {
        guard regions >= 1, clients >= 1, fingers >= 1, fingers <= 64, cycles >= 1, points >= 1, runs >= 1 else {
            throw ValidationError("--regions, --clients, --cycles, --points and --runs must be >= 1; --fingers 1...64")
        }
    }

    func run() throws {
        var rng = SplitMix64(seed: seed)
        let declared = Self.layout(regions: regions, clients: clients, gestures: !noGestures, rng: &rng)
        // The index's own cost at any size: the daemon's budget (RoutingBudget) is not this benchmark's.
        var set = RegionSet(budget: .unlimited)
        for (client, list) in declared {
            do { try set.replace(client: client, with: list) } catch {
                printError("multitouchctl bench-routing: generated regions refused: \(error)")
                throw ExitCode.failure
            }
        }
        let index = set.index
        let probes = (0..<min(points, 1 << 16)).map { _ in
            Point(x: Double.random(in: 0..<1920, using: &rng), y: Double.random(in: 0..<1080, using: &rng))
        }
        print(
            "bench-routing: \(regions) regions from \(clients) clients, \(index.entries.count) hittable; seed \(seed)")

        // 1. The hit test alone (owner and observers, as a began does).
        var sink = 0
        var observers: [Int] = []
        observers.reserveCapacity(64)
        let grid = measure(runs: runs) {
            for k in 0..<points {
                let p = probes[k & (probes.count - 1)]
                observers.removeAll(keepingCapacity: true)
                index.observers(at: p, into: &observers)
                sink &+= (index.owner(at: p) ?? -1) &+ observers.count
            }
        }
        let linearPoints = max(1, points / 20)
        let linear = measure(runs: runs) {
            for k in 0..<linearPoints { sink &+= index.ownerByLinearScan(at: probes[k & (probes.count - 1)]) ?? -1 }
        }
        report("hit test, grid", grid, per: points, unit: "began")
        report("hit test, walk over every region (reference)", linear, per: linearPoints, unit: "began")

        // 2. The whole router: fingers land one per frame, move, lift.
        var frames: [TouchFrame] = []
        var begans = 0
        var nextID: UInt64 = 1
        var time: Int64 = 1_000_000
        for _ in 0..<cycles {
            var down: [(id: UInt64, at: Point)] = []
            func frame(_ phases: [UInt64: TouchPhase]) {
                time += 8_000
                let stamp = Timestamp(microseconds: time)
                frames.append(
                    TouchFrame(
                        time: stamp,
                        touches: down.map { f in
                            Touch(
                                id: f.id, slot: Int(f.id % 64), trackingID: Int32(truncatingIfNeeded: f.id),
                                phase: phases[f.id] ?? .stationary, location: f.at, previousLocation: f.at,
                                millimeters: f.at / 4, normalized: Point(x: f.at.x / 1920, y: f.at.y / 1080),
                                timestamp: stamp,
                                type: .direct)
                        }, fingerCount: down.count))
            }
            for _ in 0..<fingers {
                down.append((nextID, probes[Int(nextID) & (probes.count - 1)]))
                frame([nextID: .began])
                nextID += 1
                begans += 1
            }
            for _ in 0..<20 {
                for i in down.indices { down[i].at = down[i].at + Point(x: 3, y: -2) }
                frame(Dictionary(uniqueKeysWithValues: down.map { ($0.id, TouchPhase.moved) }))
            }
            frame(Dictionary(uniqueKeysWithValues: down.map { ($0.id, TouchPhase.ended) }))
            time += 400_000
        }
        var deliveries = 0
        // Frames in which a finger lands are timed on their own as well (two clock reads per frame,
        // about 50 ns, are included in that figure).
        var beganFrameSeconds: [Double] = []
        let routed = measure(runs: runs) {
            var router = TouchRouter(budget: .unlimited)
            for (client, list) in declared { _ = router.handle(.regionsReplaced(client: client, regions: list)) }
            var count = 0
            var beganTime = Duration.zero
            for f in frames {
                if let d = router.nextDeadline, d < f.time { count += router.handle(.advance(to: d)).count }
                if f.touches.contains(where: { $0.phase == .began }) {
                    let start = ContinuousClock.now
                    count += router.handle(.frame(f, predicted: [])).count
                    beganTime += start.duration(to: .now)
                } else {
                    count += router.handle(.frame(f, predicted: [])).count
                }
            }
            count += router.handle(.deviceGone).count
            deliveries = count
            beganFrameSeconds.append(
                Double(beganTime.components.seconds) + Double(beganTime.components.attoseconds) / 1e18)
        }
        report(
            "router, frames with a began (binding + delivery + sessions)", beganFrameSeconds.sorted(), per: begans,
            unit: "began")
        report(
            "router, all frames (\(fingers) fingers, \(frames.count / cycles) frames per cycle)", routed,
            per: frames.count, unit: "frame")
        print("bench-routing: \(deliveries) deliveries per router run (checksum \(sink & 0xffff))")
    }

    /// Regions of a kiosk-like screen: tiles and buttons of 40-400 px, a tenth passthrough (16 x 16
    /// masks, half solid), a twentieth observers, z 0-7, spread over the clients.
    static func layout(regions: Int, clients: Int, gestures: Bool, rng: inout SplitMix64) -> [(ClientID, [Region])] {
        var byClient = [[Region]](repeating: [], count: clients)
        for i in 0..<regions {
            let w = Double.random(in: 40...400, using: &rng)
            let h = Double.random(in: 40...400, using: &rng)
            let x = Double.random(in: 0...(1920 - w), using: &rng)
            let y = Double.random(in: 0...(1080 - h), using: &rng)
            let kind = i % 20
            let mode: RegionMode = kind == 0 ? .observer : (kind % 10 == 5 ? .passthrough : .opaque)
            let mask =
                mode == .passthrough
                ? AlphaMask(columns: 16, rows: 16, solid: (0..<256).map { _ in Bool.random(using: &rng) }) : nil
            byClient[i % clients].append(
                Region(
                    id: "r\(i)", shape: .rectangle(RegionRect(x: x, y: y, width: w, height: h)), mask: mask,
                    z: Int.random(in: 0..<8, using: &rng), mode: mode,
                    options: RegionOptions(gestures: gestures && mode != .observer)))
        }
        return byClient.enumerated().map { (ClientID(UInt64($0.offset + 1)), $0.element) }
    }

    private func measure(runs: Int, _ body: () -> Void) -> [Double] {
        var seconds: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            body()
            let elapsed = start.duration(to: .now)
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return seconds.sorted()
    }

    private func report(_ name: String, _ seconds: [Double], per count: Int, unit: String) {
        let ns = seconds.map { $0 / Double(count) * 1e9 }
        let whole = { (value: Double) in String(format: "%.0f", value) }
        print(
            "bench-routing: \(name): median \(whole(ns[ns.count / 2])) ns per \(unit) (min \(whole(ns.first ?? 0)), "
                + "max \(whole(ns.last ?? 0)))")
    }
}
