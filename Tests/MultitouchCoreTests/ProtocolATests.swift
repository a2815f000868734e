import MultitouchCore
import MultitouchTestKit
import Testing

@Suite("Contact tracker: protocol A and single touch")
struct ProtocolATests {
    let panel = TestDevices.protocolATouchscreen()

    /// For every touch id, the finger it must follow: the finger whose staged x is nearest at began.
    private func idsFollowFingers(_ frames: [TouchFrame], fingerX: [Double]) -> Bool {
        var owner: [UInt64: Int] = [:]
        for frame in frames {
            for touch in frame.activeTouches {
                let nearest = fingerX.indices.min { Swift.abs(fingerX[$0] / 100 - touch.normalized.x) < Swift.abs(fingerX[$1] / 100 - touch.normalized.x) }!
                if let known = owner[touch.id], known != nearest { return false }
                owner[touch.id] = nearest
            }
        }
        return Set(owner.values).count == fingerX.count && owner.count == fingerX.count
    }

    @Test("ids stay with their fingers whatever order the contacts come in", arguments: [
        TouchScripter.ContactOrder.landing, .reversed, .rotating,
    ])
    func stableIDs(order: TouchScripter.ContactOrder) {
        var script = TouchScripter(device: panel)
        script.contactOrder = order
        let xs = [20.0, 45, 70]
        for (finger, x) in xs.enumerated() { script.down(finger: finger, x: x, y: 30) }
        script.frame()
        // All three move down together, 2% of the height per frame (about 3 mm at the nominal size).
        script.move(fingers: xs.indices.map { ($0, xs[$0], 70) }, steps: 20, durationMs: 200)
        let frames = TouchFrames.track(script.events, device: panel)
        #expect(frames.count == 22)
        #expect(frames[0].phases == [.began, .began, .began])
        #expect(frames[1...20].allSatisfy { $0.phases == [.moved, .moved, .moved] })
        #expect(idsFollowFingers(frames, fingerX: xs))
        #expect(frames.last?.phases == [.cancelled, .cancelled, .cancelled])
        #expect(TouchFrames.problems(in: frames).isEmpty)
    }

    @Test("contacts come and go: survivors keep their ids, a contact-less frame ends all")
    func contactCountChanges() throws {
        var script = TouchScripter(device: panel)
        script.contactOrder = .reversed
        script.down(finger: 0, x: 30, y: 50)
        script.frame()
        script.advance(ms: 10)
        script.down(finger: 1, x: 70, y: 50)
        script.frame()
        script.advance(ms: 10)
        script.up(finger: 0)
        script.move(finger: 1, x: 69, y: 50)
        script.frame()
        script.advance(ms: 10)
        script.up(finger: 1)
        script.frame()
        let frames = TouchFrames.track(script.events, device: panel, cancelAtEnd: false)
        #expect(frames.count == 4)
        #expect(frames.map(\.fingerCount) == [1, 2, 1, 0])
        let first = frames[0].touches[0].id
        #expect(frames[1].touch(first)?.phase == .stationary)
        let second = try #require(frames[1].touches.first { $0.id != first }).id
        #expect(frames[2].touch(first)?.phase == .ended)
        #expect(frames[2].touch(second)?.phase == .moved)
        #expect(frames[3].phases == [.ended])
        #expect(frames[3].touches[0].id == second)
        #expect(TouchFrames.problems(in: frames).isEmpty)
        #expect(frames.allSatisfy { frame in frame.touches.allSatisfy { $0.type == .direct } })
    }

    @Test("a lone SYN_MT_REPORT, or BTN_TOUCH 0 without contacts, ends every contact; other frames keep them")
    func emptyFrames() throws {
        for ending in [[mtReport], [keyEvent(KeyCode.btnTouch, 0)]] {
            let tracker = makeTracker(panel)
            let contact = [absEvent(AbsCode.mtPositionX, 100), absEvent(AbsCode.mtPositionY, 100), mtReport]
            let began = try #require(tracker.process(rawFrame(0, contact + contact.map { ($0.0, $0.1, $0.2 == 100 ? 5000 : $0.2) })))
            #expect(began.phases == [.began, .began])
            #expect(tracker.process(rawFrame(10, [(EventType.msc, MscCode.timestamp, 1)])) == nil)
            let ended = try #require(tracker.process(rawFrame(20, ending)))
            #expect(ended.phases == [.ended, .ended])
            #expect(tracker.activeTouchCount == 0)
        }
    }

    @Test("a contact that jumps farther than the matcher allows is a new touch")
    func jumpIsNewTouch() throws {
        let tracker = makeTracker(panel)
        let first = try #require(tracker.process(rawFrame(0, [absEvent(AbsCode.mtPositionX, 0), absEvent(AbsCode.mtPositionY, 0), mtReport])))
        let frame = try #require(tracker.process(rawFrame(10, [absEvent(AbsCode.mtPositionX, 9600), absEvent(AbsCode.mtPositionY, 7200), mtReport])))
        #expect(frame.touch(first.touches[0].id)?.phase == .ended)
        #expect(frame.touches.count == 2)
        #expect(frame.touches[1].phase == .began)
    }

    @Test("single-touch devices: BTN_TOUCH begins and ends one touch, ABS_PRESSURE is its force")
    func singleTouch() throws {
        let device = TestDevices.singleTouch()
        let tracker = makeTracker(device)
        #expect(tracker.process(rawFrame(0, [absEvent(AbsCode.x, 400), absEvent(AbsCode.y, 200)])) == nil, "no touch without BTN_TOUCH")
        let began = try #require(tracker.process(rawFrame(10, [absEvent(AbsCode.pressure, 51), keyEvent(KeyCode.btnTouch, 1)])))
        #expect(began.phases == [.began])
        #expect(began.touches[0].millimeters == Point(x: 100, y: 50))
        #expect(began.touches[0].force == 0.2)
        #expect(began.touches[0].majorRadius == nil)
        let moved = try #require(tracker.process(rawFrame(20, [absEvent(AbsCode.x, 404)])))
        #expect(moved.phases == [.moved])
        #expect(moved.touches[0].millimeters.x == 101)
        let ended = try #require(tracker.process(rawFrame(30, [keyEvent(KeyCode.btnTouch, 0)])))
        #expect(ended.phases == [.ended])
        #expect(tracker.activeTouchCount == 0)

        var script = TouchScripter(device: device)
        script.tap(x: 10, y: 10)
        script.advance(ms: 100)
        script.down(finger: 0, x: 50, y: 50)
        script.frame()
        script.move(finger: 0, toX: 80, y: 20, steps: 5, durationMs: 50)
        let frames = TouchFrames.track(script.events, device: device)
        #expect(frames.map { $0.phases.first } == [.began, .ended, .began, .moved, .moved, .moved, .moved, .moved, .cancelled])
        #expect(TouchFrames.problems(in: frames).isEmpty)
    }
}

@Suite("Protocol A matcher")
struct ProtocolAMatcherTests {
    @Test("the assignment minimises the total distance, not each contact's own")
    func optimalNotGreedy() {
        var matcher = ProtocolAMatcher(maximumJumpMillimeters: 40)
        var assignment: [Int] = []
        // Greedy would pair current 0 with previous 1 (distance 1) and leave current 1 with a 20 mm
        // move; the optimum moves both by about 10 mm.
        let previous = [Point(x: 0, y: 0), Point(x: 10, y: 0)]
        let current = [Point(x: 9, y: 0), Point(x: 20, y: 0)]
        matcher.match(previous: previous, current: current, into: &assignment)
        #expect(assignment == [0, 1])
    }

    @Test("pairs beyond the maximum jump are not formed; the rest are")
    func maximumJump() {
        var matcher = ProtocolAMatcher(maximumJumpMillimeters: 10)
        var assignment: [Int] = []
        matcher.match(previous: [Point(x: 0, y: 0), Point(x: 50, y: 0)], current: [Point(x: 100, y: 0), Point(x: 52, y: 0)], into: &assignment)
        #expect(assignment == [-1, 1])
        matcher.match(previous: [], current: [Point(x: 1, y: 1)], into: &assignment)
        #expect(assignment == [-1])
        matcher.match(previous: [Point(x: 1, y: 1)], current: [], into: &assignment)
        #expect(assignment.isEmpty)
    }

    @Test("more than 8 contacts: greedy, still one-to-one and within the jump", arguments: [9, 12, 32])
    func manyContacts(count: Int) {
        var matcher = ProtocolAMatcher(maximumJumpMillimeters: 5)
        var assignment: [Int] = []
        let previous = (0..<count).map { Point(x: Double($0) * 10, y: 0) }
        let current = previous.reversed().map { $0 + Point(x: 1, y: 1) }
        matcher.match(previous: previous, current: current, into: &assignment)
        #expect(assignment == (0..<count).reversed().map { $0 })
    }

    @Test("exact matching agrees with brute force over random small sets")
    func agreesWithBruteForce() {
        var rng = SplitMix64(seed: 7)
        var matcher = ProtocolAMatcher(maximumJumpMillimeters: 30)
        var assignment: [Int] = []
        for _ in 0..<300 {
            let previous = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                Point(x: Double.random(in: 0...60, using: &rng), y: Double.random(in: 0...60, using: &rng))
            }
            let current = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                Point(x: Double.random(in: 0...60, using: &rng), y: Double.random(in: 0...60, using: &rng))
            }
            matcher.match(previous: previous, current: current, into: &assignment)
            #expect(Self.cost(assignment, previous, current, 30) <= Self.bruteForce(previous, current, 30) + 1e-9)
        }
    }

    static func cost(_ assignment: [Int], _ previous: [Point], _ current: [Point], _ jump: Double) -> Double {
        var total = 0.0
        var used = Set<Int>()
        for (i, j) in assignment.enumerated() {
            if j < 0 {
                total += jump
            } else {
                let d = current[i].distance(to: previous[j])
                if d > jump || used.contains(j) { return .infinity }
                used.insert(j)
                total += d
            }
        }
        return total + jump * Double(previous.count - used.count)
    }

    static func bruteForce(_ previous: [Point], _ current: [Point], _ jump: Double) -> Double {
        var best = Double.infinity
        func search(_ i: Int, _ assignment: [Int]) {
            if i == current.count {
                best = min(best, cost(assignment, previous, current, jump))
                return
            }
            search(i + 1, assignment + [-1])
            for j in previous.indices where !assignment.contains(j) { search(i + 1, assignment + [j]) }
        }
        search(0, [])
        return best
    }
}
