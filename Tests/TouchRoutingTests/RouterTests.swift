import Gestures
import MultitouchCore
import Testing

@testable import TouchRouting

@Suite("Touch routing: binding, per-region gestures, cancellation")
struct RouterTests {
    @Test func bindingSurvivesMovingOutAndRegionUpdates() {
        var h = Kiosk.harness()
        var s = Screen()
        let a = s.down(50, 50)  // a toolbar button
        h.feed(s.frame())
        for _ in 0..<10 {
            s.moveBy(a, 30, 40)  // out of the toolbar, over the map
            h.feed(s.frame())
        }
        // The toolbar moves away and then hides mid-touch: the touch stays with it.
        var moved = Kiosk.toolbarRegion()
        moved.shape = rect(0, 500, 1000, 100)
        h.declare(Kiosk.toolbar, [moved])
        s.moveBy(a, 5, 0)
        h.feed(s.frame())
        h.declare(Kiosk.toolbar, [Kiosk.toolbarRegion(hidden: true)])
        s.moveBy(a, 5, 0)
        h.feed(s.frame())
        s.up(a)
        h.feed(s.frame())
        let phases = h.touches(for: Kiosk.toolbar).flatMap(\.touches).map(\.phase)
        #expect(phases.first == .began)
        #expect(phases.last == .ended)
        #expect(phases.count == 14)
        #expect(h.touches(for: Kiosk.map).isEmpty, "moving over the map never re-binds")
        #expect(h.ids(for: Kiosk.fluid, phase: .ended) == [a], "the observer saw it to the end")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    /// Issue 12's "done" scene: a toolbar tap and a map pinch at the same time, each program gets only
    /// its own touches and gestures.
    @Test func toolbarTapAndMapPinchAtTheSameTime() {
        var h = Kiosk.harness()
        var s = Screen()
        let b = s.down(400, 300)
        let c = s.down(600, 300)
        h.feed(s.frame())
        let a = s.down(150, 50)  // toolbar button, while the pinch runs
        s.move(b, to: 390, 300)
        s.move(c, to: 610, 300)
        h.feed(s.frame())
        for step in 1...10 {
            s.move(b, to: 390 - Double(step) * 20, 300)
            s.move(c, to: 610 + Double(step) * 20, 300)
            if step == 3 { s.up(a) }
            h.feed(s.frame(after: 16))
        }
        s.up(b)
        s.up(c)
        h.feed(s.frame())

        #expect(h.ids(for: Kiosk.toolbar, phase: .began) == [a])
        #expect(h.ids(for: Kiosk.map, phase: .began) == [b, c])
        #expect(h.touches(for: Kiosk.toolbar).allSatisfy { $0.touches.allSatisfy { $0.id == a } })
        #expect(h.touches(for: Kiosk.map).allSatisfy { $0.touches.allSatisfy { $0.id != a } })
        let toolbar = h.gestures(for: Kiosk.toolbar, "toolbar")
        #expect(toolbar.taps == 1)
        #expect(toolbar.updates.isEmpty)
        let map = h.gestures(for: Kiosk.map, "map")
        #expect(map.taps == 0)
        #expect(!map.updates.isEmpty)
        #expect(map.updates.allSatisfy { $0.mode == .pinchRotate && $0.fingers == 2 }, "the toolbar finger never joins")
        let last = map.updates.last
        #expect(last?.phase == .ended)
        #expect((last?.scale ?? 0) > 2)
        #expect(h.ids(for: Kiosk.fluid, phase: .began) == [a, b, c], "the background sees all three")
        #expect(h.gestures(for: Kiosk.fluid, "fluid").isEmpty, "observers get gestures only when they ask")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func fingerOnTheMapWhileAToolbarButtonIsHeldPansTheMap() {
        var h = Kiosk.harness()
        var s = Screen()
        let button = s.down(250, 40)
        h.feed(s.frame())
        let finger = s.down(500, 400)
        h.feed(s.frame())
        for _ in 0..<10 {
            s.moveBy(finger, 12, -6)
            h.feed(s.frame(after: 16))
        }
        s.up(finger)
        h.feed(s.frame())
        s.up(button)
        h.feed(s.frame())
        let map = h.gestures(for: Kiosk.map, "map").updates
        #expect(map.first?.phase == .began)
        #expect(map.allSatisfy { $0.mode == .pan && $0.fingers == 1 })
        // Pure one-finger motion: the pan's translation is the finger's displacement past the slop.
        #expect(map.last?.phase == .ended)
        #expect(h.gestures(for: Kiosk.toolbar, "toolbar").updates.isEmpty, "the held button is no pan")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func clientDisconnectMidGestureCancelsItsTouchesAndSession() {
        var h = Kiosk.harness()
        var s = Screen()
        let b = s.down(400, 300)
        let c = s.down(600, 300)
        h.feed(s.frame())
        for step in 1...5 {
            s.move(b, to: 400 - Double(step) * 20, 300)
            s.move(c, to: 600 + Double(step) * 20, 300)
            h.feed(s.frame(after: 16))
        }
        let out = h.send(.clientGone(ClientID(Kiosk.map)))
        let cancelled = out.compactMap { if case .touches(let t) = $0 { return t } else { return nil } }
        #expect(cancelled.map(\.reason) == [.clientGone])
        #expect(Set(cancelled.flatMap(\.touches).map(\.id)) == [b, c])
        #expect(cancelled.flatMap(\.touches).allSatisfy { $0.phase == .cancelled })
        let gestures = out.compactMap { if case .gesture(_, let e, _) = $0 { return e } else { return nil } }
        #expect(gestures.updates.last?.phase == .cancelled)
        #expect(gestures.contains { if case .sessionEnded(_, _, true) = $0 { return true } else { return false } })
        // The fingers keep moving: nothing more for the gone client, the observer carries on.
        s.moveBy(b, -10, 0)
        let after = h.feed(s.frame())
        #expect(after.allSatisfy { $0.client == ClientID(Kiosk.fluid) })
        #expect(!after.isEmpty)
        s.up(b)
        s.up(c)
        h.feed(s.frame())
        #expect(h.ids(for: Kiosk.fluid, phase: .ended) == [b, c])
        #expect(h.router.regions.hasRegions(ClientID(Kiosk.map)) == false)
        h.checker.finish()
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func removedRegionCancelsItsTouchesWhichAreNeverRebound() {
        var h = Kiosk.harness()
        var s = Screen()
        let a = s.down(50, 50)
        h.feed(s.frame())
        let out = h.send(.regionsReplaced(client: ClientID(Kiosk.toolbar), regions: []))
        // The raw touch and the region's gesture session are both cancelled, in that order.
        #expect(out.count == 2)
        #expect(
            out.last.map {
                if case .gesture(_, .sessionEnded(_, _, true), _) = $0 { return true } else { return false }
            }
                == true)
        guard case .touches(let m) = out.first else {
            Issue.record("expected a cancellation, got \(out)")
            return
        }
        #expect(m.reason == .regionRemoved)
        #expect(m.touches.map(\.id) == [a])
        s.moveBy(a, 0, 300)
        h.feed(s.frame())
        s.up(a)
        h.feed(s.frame())
        #expect(h.touches(for: Kiosk.map).isEmpty, "the map below does not inherit it")
        #expect(h.ids(for: Kiosk.toolbar, phase: .cancelled) == [a])
        #expect(h.ids(for: Kiosk.toolbar, phase: .ended).isEmpty)
        // The same id declared again is a new region: the next touch binds to it afresh.
        h.declare(Kiosk.toolbar, [Kiosk.toolbarRegion()])
        let next = s.down(50, 50)
        h.feed(s.frame())
        s.up(next)
        h.feed(s.frame())
        #expect(h.ids(for: Kiosk.toolbar, phase: .ended) == [next])
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func hiddenAndDisabledToolbarPassesTouchesToTheMap() {
        for region in [Kiosk.toolbarRegion(hidden: true), Kiosk.toolbarRegion(disabled: true)] {
            var h = Kiosk.harness()
            h.declare(Kiosk.toolbar, [region])
            var s = Screen()
            let a = s.down(50, 50)
            h.feed(s.frame())
            s.up(a)
            h.feed(s.frame())
            #expect(h.touches(for: Kiosk.toolbar).isEmpty)
            #expect(h.ids(for: Kiosk.map, phase: .ended) == [a])
            #expect(h.checker.isClean, "\(h.checker.violations)")
        }
    }

    @Test func exclusiveClaimCancelsObservers() {
        var h = Kiosk.harness(map: RegionOptions(exclusive: true))
        h.declare(Kiosk.fluid, [Kiosk.fluidRegion(gestures: true)])
        var s = Screen()
        let a = s.down(500, 300)
        h.feed(s.frame())
        s.moveBy(a, 2, 0)  // 0.5 mm: under the pan slop, nothing recognised yet
        h.feed(s.frame())
        #expect(h.ids(for: Kiosk.fluid, phase: .moved) == [a])
        for _ in 0..<6 {
            s.moveBy(a, 12, 0)
            h.feed(s.frame(after: 16))
        }
        let fluid = h.touches(for: Kiosk.fluid)
        #expect(fluid.last?.reason == .claimed)
        #expect(h.ids(for: Kiosk.fluid, phase: .cancelled) == [a])
        let fluidGestures = h.gestures(for: Kiosk.fluid, "fluid")
        #expect(fluidGestures.contains { if case .sessionEnded(_, _, true) = $0 { return true } else { return false } })
        let before = h.all.count
        s.moveBy(a, 12, 0)
        h.feed(s.frame(after: 16))
        s.up(a)
        h.feed(s.frame())
        #expect(h.all[before...].allSatisfy { $0.client == ClientID(Kiosk.map) }, "nothing more for the observer")
        // The next touch in the map starts unclaimed: the observer sees it again.
        let b = s.down(500, 300)
        h.feed(s.frame())
        #expect(h.ids(for: Kiosk.fluid, phase: .began).contains(b))
        s.up(b)
        h.feed(s.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func clientRecognitionClaimsLikeTheEngineDoes() {
        var h = Kiosk.harness(map: RegionOptions(exclusive: true))
        var s = Screen()
        let a = s.down(500, 300)
        h.feed(s.frame())
        let out = h.send(.gestureRecognized(RegionKey(client: ClientID(Kiosk.map), region: "map")))
        #expect(out.count == 1)
        #expect(out.first?.client == ClientID(Kiosk.fluid))
        // While the session is claimed, a second finger in the map is not shown to the observer.
        let b = s.down(520, 300)
        h.feed(s.frame())
        #expect(!h.ids(for: Kiosk.fluid, phase: .began).contains(b))
        #expect(h.ids(for: Kiosk.map, phase: .began) == [a, b])
        s.up(a)
        s.up(b)
        h.feed(s.frame())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func cancelsTouchesOnRecognitionKeepsTheGestureGoing() {
        var h = Kiosk.harness(map: RegionOptions(cancelsTouchesOnRecognition: true))
        var s = Screen()
        let a = s.down(500, 300)
        h.feed(s.frame())
        for _ in 0..<8 {
            s.moveBy(a, 12, 0)
            h.feed(s.frame(after: 16))
        }
        s.up(a)
        h.feed(s.frame())
        let raw = h.touches(for: Kiosk.map)
        #expect(raw.contains { $0.reason == .recognized })
        #expect(h.ids(for: Kiosk.map, phase: .cancelled) == [a])
        #expect(h.ids(for: Kiosk.map, phase: .ended).isEmpty)
        let updates = h.gestures(for: Kiosk.map, "map").updates
        #expect(updates.first?.phase == .began)
        #expect(updates.last?.phase == .ended, "the pan ends normally after its touches were cancelled")
        #expect(h.ids(for: Kiosk.fluid, phase: .ended) == [a], "not exclusive: the observer is untouched")
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func delaysTouchesUntilFailure() {
        var h = Kiosk.harness(toolbar: RegionOptions(delaysTouchesUntilFailure: true))
        var s = Screen()
        // A tap is recognised: its touches are never delivered, only the tap.
        let a = s.down(50, 50)
        h.feed(s.frame())
        s.up(a)
        h.feed(s.frame(after: 60))
        #expect(h.touches(for: Kiosk.toolbar).isEmpty)
        #expect(h.gestures(for: Kiosk.toolbar, "toolbar").taps == 1)
        // Held 350 ms without moving: too long for a tap, too short for a long press: recognition
        // failed, and the held-back touches arrive in order when the finger lifts.
        let b = s.down(50, 50)
        h.feed(s.frame(after: 1000))
        s.moveBy(b, 1, 0)
        let held = h.feed(s.frame(after: 150))
        #expect(
            held.allSatisfy {
                $0.client != ClientID(Kiosk.toolbar)
                    || { if case .gesture = $0 { return true } else { return false } }($0)
            })
        s.up(b)
        h.feed(s.frame(after: 200))
        let raw = h.touches(for: Kiosk.toolbar)
        #expect(raw.flatMap(\.touches).map(\.phase) == [.began, .moved, .ended])
        #expect(raw.allSatisfy { $0.touches.allSatisfy { $0.id == b } })
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func deviceGoneCancelsEverythingForEveryone() {
        var h = Kiosk.harness()
        h.declare(Kiosk.fluid, [Kiosk.fluidRegion(gestures: true)])
        var s = Screen()
        _ = s.down(50, 50)
        let b = s.down(400, 300)
        let c = s.down(600, 300)
        h.feed(s.frame())
        s.moveBy(b, -40, 0)
        s.moveBy(c, 40, 0)
        h.feed(s.frame(after: 16))
        let out = h.send(.deviceGone)
        let reasons = Set(out.compactMap { if case .touches(let t) = $0 { return t.reason } else { return nil } })
        #expect(reasons == [.deviceGone])
        #expect(Set(out.map(\.client)) == [ClientID(1), ClientID(2), ClientID(3)])
        #expect(h.router.boundTouchCount == 0)
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }

    @Test func clientsWithoutRegionsAreNotRouted() {
        var h = Kiosk.harness()
        #expect(h.router.regions.hasRegions(ClientID(9)) == false)
        let out = h.send(
            .regionsReplaced(
                client: ClientID(9), regions: [Region(id: "x", shape: rect(0, 0, 1, 1), mode: .passthrough)]))
        guard case .rejected(let client, let error) = out.first else {
            Issue.record("expected a rejection, got \(out)")
            return
        }
        #expect(client == ClientID(9))
        #expect(error.description.contains("needs a mask"))
        #expect(h.router.regions.hasRegions(ClientID(9)) == false)
    }

    @Test func longPressFiresFromVirtualTimeInItsRegionOnly() {
        var h = Kiosk.harness()
        var s = Screen()
        let a = s.down(50, 50)
        h.feed(s.frame())
        #expect(h.router.nextDeadline != nil)
        guard let deadline = h.router.nextDeadline else { return }
        let out = h.send(.advance(to: deadline))
        #expect(out.count == 1)
        #expect(
            out.first.map {
                if case .gesture(let r, .longPress(_, _, .began, _, _), _) = $0 {
                    return r.key.region == "toolbar"
                } else {
                    return false
                }
            } == true)
        s.up(a)
        h.feed(s.frame(after: 600))
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }
}

@Suite("Per-region transforms")
struct RegionTransformTests {
    @Test func setTransformAppliesToTheRegionsSessionOnly() {
        var h = Kiosk.harness()
        let map = RegionKey(client: ClientID(Kiosk.map), region: "map")
        let shift = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 100, ty: 0)
        let out = h.send(.setTransform(map, shift))
        #expect(out == [.transformSet(Recipient(key: map, role: .owner), shift)])
        var s = Screen()
        let a = s.down(500, 300)
        h.feed(s.frame())
        for _ in 0..<6 {
            s.moveBy(a, 12, 0)
            h.feed(s.frame(after: 16))
        }
        s.up(a)
        h.feed(s.frame())
        let last = h.gestures(for: Kiosk.map, "map").updates.last
        #expect(last?.phase == .ended)
        // The pan's translation is added on top of the transform the client set.
        #expect(last.map { abs($0.matrix.tx - (100 + $0.translation.x)) < 1e-9 } == true)
        let bad = h.send(.setTransform(map, AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0)))
        #expect(bad.count == 1 && bad.first?.client == ClientID(Kiosk.map))
        #expect({ if case .rejected = bad.first { return true } else { return false } }())
        let unknown = h.send(.setTransform(RegionKey(client: ClientID(Kiosk.map), region: "nope"), shift))
        #expect({ if case .rejected = unknown.first { return true } else { return false } }())
        #expect(h.checker.isClean, "\(h.checker.violations)")
    }
}
