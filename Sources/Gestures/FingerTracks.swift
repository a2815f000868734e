import MultitouchCore

/// The touches the gesture engine follows, one track per touch id, in a small array (no per-touch
/// dictionary on the hot path): where each is now and was in the previous frame, where it landed,
/// its recent motion (for velocities, stamped with the frames' event times), whether a clickpad rule
/// leaves it out (`ThumbDetector`), and whether it belongs to the segment being measured.
struct FingerTracks: Sendable {
    /// One touch.
    struct Track: Sendable {
        var id: UInt64
        var location: Point
        var mm: Point
        /// Where it was after the previous frame that carried it (equal to `location` at its landing).
        var previousLocation: Point
        var previousMM: Point
        var landingLocation: Point
        var landingMM: Point
        var landingTime: Timestamp
        var force: Double?
        var majorRadius: Double?
        var minorRadius: Double?
        /// Frame stamp of the last frame that carried this touch.
        var seen: UInt64
        /// Ended, cancelled or missing in the current frame: removed after the frame.
        var terminal: Bool
        /// Landed in the current frame.
        var began: Bool
        /// Moved in the current frame.
        var moved: Bool
        /// Left out of gestures by a clickpad rule.
        var exclusion: ThumbDetector.Exclusion?
        var released = false
        /// Counted for gestures after the previous frame.
        var counted = false
        /// Counted in the session's landing position (the tap location) already.
        var inSession = false
        /// libinput's speed count: up per frame faster than 20 mm/s, down per slower frame (0...15).
        var speedExceeded = 0
        var lastMoveTime: Timestamp
        /// Member of the segment being measured.
        var member = false
        /// Where the segment's measurement started for this finger (published space and mm).
        var reference: Point = .zero
        var referenceMM: Point = .zero

        /// Counts for gestures: down and not left out.
        var isFinger: Bool { !terminal && exclusion == nil }
    }

    private(set) var tracks: [Track] = []
    /// (x, y, x mm, y mm) samples of each track's motion, index for index with `tracks` (kept apart so
    /// the tracks the loops below copy stay small).
    private var motions: [VelocityTracker] = []
    /// Trackers of touches that ended, kept for the next touches (their rings are reused: a touch
    /// that lands allocates nothing). At most `spareLimit`.
    private var spareMotions: [VelocityTracker] = []
    private static let spareLimit = 32
    private var frameStamp: UInt64 = 0
    private var facts: [ThumbDetector.TouchFacts] = []

    init() {
        tracks.reserveCapacity(16)
        motions.reserveCapacity(16)
        spareMotions.reserveCapacity(16)
        facts.reserveCapacity(16)
    }

    /// What one frame changed.
    struct Change: Sendable {
        /// Fingers that count for gestures after the frame (not terminal, not left out).
        var fingers = 0
        /// A touch that counted lifted (or was lost), or a counting touch became left out.
        var lifted = false
        /// A touch that counts landed, or a left-out touch started counting.
        var landed = false
        /// A touch was cancelled.
        var cancelled = false
        /// Any touch that counts moved.
        var moved = false
        /// Any touch at all is down (counting or not).
        var anyDown = false
        /// A touch that is not left out landed in this frame (it may have lifted in it too).
        var touchedDown = false
        /// Touches down but left out (thumbs, button area).
        var excluded = 0
    }

    var isEmpty: Bool { tracks.isEmpty }

    subscript(index: Int) -> Track {
        get { tracks[index] }
        set { tracks[index] = newValue }
    }

    var indices: Range<Int> { tracks.indices }

    /// Follows the frame's touches; `thumbs` decides which are left out.
    mutating func update(_ frame: TouchFrame, thumbs: ThumbDetector) -> Change {
        frameStamp &+= 1
        let time = frame.time
        var change = Change()
        for i in tracks.indices {
            tracks[i].began = false
            tracks[i].moved = false
        }
        var searchStart = 0
        for k in frame.touches.indices {
            // Field by field: a Touch is large, and copying each one whole shows up in profiles.
            let id = frame.touches[k].id
            let phase = frame.touches[k].phase
            let location = frame.touches[k].location
            let mm = frame.touches[k].millimeters
            if phase == .cancelled { change.cancelled = true }
            // A position that is not finite (a bug upstream) is not taken: the track keeps its last
            // one, and a touch without any finite position yet is not followed.
            let usable = location.isFinite && mm.isFinite
            var index = -1
            var i = searchStart
            while i < tracks.count {
                if tracks[i].id == id {
                    index = i
                    break
                }
                i += 1
            }
            if index < 0 {
                i = 0
                while i < min(searchStart, tracks.count) {
                    if tracks[i].id == id {
                        index = i
                        break
                    }
                    i += 1
                }
            }
            if index >= 0 {
                var t = tracks[index]
                t.previousLocation = t.location
                t.previousMM = t.mm
                t.terminal = phase.isTerminal
                t.seen = frameStamp
                if usable && (location != t.location || mm != t.mm) {
                    let dt = time.milliseconds(since: t.lastMoveTime)
                    let speed = dt > 0 ? mm.distance(to: t.mm) / dt * 1000 : 0
                    if speed > ThumbDetector.speedThreshold {
                        t.speedExceeded = min(15, t.speedExceeded + 1)
                    } else if t.speedExceeded > 0 {
                        t.speedExceeded -= 1
                    }
                    t.location = location
                    t.mm = mm
                    t.moved = true
                    t.lastMoveTime = time
                    motions[index].add(time: time.microseconds, SIMD4(location.x, location.y, mm.x, mm.y))
                }
                t.force = frame.touches[k].force
                t.majorRadius = frame.touches[k].majorRadius
                t.minorRadius = frame.touches[k].minorRadius
                tracks[index] = t
                searchStart = index + 1
            } else if usable {
                let t = Track(
                    id: id, location: location, mm: mm, previousLocation: location, previousMM: mm,
                    landingLocation: location, landingMM: mm,
                    landingTime: time, force: frame.touches[k].force, majorRadius: frame.touches[k].majorRadius,
                    minorRadius: frame.touches[k].minorRadius, seen: frameStamp, terminal: phase.isTerminal,
                    began: true, moved: false, exclusion: nil, lastMoveTime: time)
                var motion = spareMotions.popLast() ?? VelocityTracker()
                motion.reset()
                motion.add(time: time.microseconds, SIMD4(location.x, location.y, mm.x, mm.y))
                tracks.append(t)
                motions.append(motion)
                searchStart = tracks.count
            }
        }
        // A touch the frame no longer carries left without an `ended`: treat it as lifted.
        for i in tracks.indices where tracks[i].seen != frameStamp { tracks[i].terminal = true }
        classifyThumbs(thumbs)
        for i in tracks.indices {
            let t = tracks[i]
            if !t.terminal { change.anyDown = true }
            if !t.terminal && t.exclusion != nil { change.excluded += 1 }
            if t.began && t.exclusion == nil { change.touchedDown = true }
            if t.isFinger {
                change.fingers += 1
                if t.moved { change.moved = true }
            }
            if t.counted && !t.isFinger { change.lifted = true }
            if !t.counted && t.isFinger { change.landed = true }
            tracks[i].counted = t.isFinger
        }
        return change
    }

    /// Runs the clickpad rules over the active touches.
    private mutating func classifyThumbs(_ thumbs: ThumbDetector) {
        guard thumbs.enabled else { return }
        facts.removeAll(keepingCapacity: true)
        for t in tracks where !t.terminal {
            facts.append(
                ThumbDetector.TouchFacts(
                    mm: t.mm, landingMM: t.landingMM, landingTime: t.landingTime, force: t.force,
                    majorRadius: t.majorRadius, minorRadius: t.minorRadius, speedExceeded: t.speedExceeded,
                    began: t.began, exclusion: t.exclusion, released: t.released))
        }
        thumbs.classify(&facts)
        var k = 0
        for i in tracks.indices where !tracks[i].terminal {
            tracks[i].exclusion = facts[k].exclusion
            tracks[i].released = facts[k].released
            k += 1
        }
    }

    /// Drops the terminal tracks (after the frame was handled).
    mutating func removeTerminal() {
        var kept = 0
        for i in tracks.indices where !tracks[i].terminal {
            if kept != i {
                tracks[kept] = tracks[i]
                // Swapped, not overwritten: the ended touches' trackers move to the end, to be kept.
                motions.swapAt(kept, i)
            }
            kept += 1
        }
        tracks.removeLast(tracks.count - kept)
        while motions.count > kept {
            let ended = motions.removeLast()
            if spareMotions.count < Self.spareLimit { spareMotions.append(ended) }
        }
    }

    /// Marks the tracks that count as part of the session; returns the sum of the landing positions
    /// (published, mm) of those that were not yet, and their number.
    mutating func joinSession() -> (location: Point, mm: Point, count: Int) {
        var sum = Point.zero
        var sumMM = Point.zero
        var n = 0
        for i in tracks.indices
        where !tracks[i].inSession && tracks[i].exclusion == nil && (tracks[i].isFinger || tracks[i].began) {
            tracks[i].inSession = true
            sum = sum + tracks[i].landingLocation
            sumMM = sumMM + tracks[i].landingMM
            n += 1
        }
        return (sum, sumMM, n)
    }

    // MARK: Segment membership

    /// Makes the counting touches the members of a new measurement, referenced at their current
    /// positions (`previous: false`) or at where they were after the previous frame (`previous: true`:
    /// their motion in this frame then belongs to the new measurement).
    mutating func takeMembers(previous: Bool) {
        for i in tracks.indices {
            tracks[i].member = tracks[i].isFinger
            tracks[i].reference = previous ? tracks[i].previousLocation : tracks[i].location
            tracks[i].referenceMM = previous ? tracks[i].previousMM : tracks[i].mm
        }
    }

    /// Re-references the members at their current positions (a measurement that started with
    /// coincident fingers takes its reference when they separate).
    mutating func rereferenceMembers() {
        for i in tracks.indices where tracks[i].member {
            tracks[i].reference = tracks[i].location
            tracks[i].referenceMM = tracks[i].mm
        }
    }

    /// Mean of the counting touches' positions (published space); nil when none counts.
    var fingerCentroid: Point? {
        var sum = Point.zero
        var n = 0
        for t in tracks where t.isFinger {
            sum = sum + t.location
            n += 1
        }
        return n > 0 ? sum / Double(n) : nil
    }

    /// Mean velocity of the members: (published units/s, mm/s).
    func memberVelocity(
        now: Timestamp, windowMicroseconds: Int64, stopMicroseconds: Int64
    ) -> (published: Point, mm: Point) {
        var sum = SIMD4<Double>.zero
        var n = 0.0
        for i in tracks.indices where tracks[i].member {
            sum += motions[i].velocity(
                now: now.microseconds, windowMicroseconds: windowMicroseconds, stopMicroseconds: stopMicroseconds)
            n += 1
        }
        guard n > 0 else { return (.zero, .zero) }
        let v = sum / n
        return (Point(x: v.x, y: v.y), Point(x: v.z, y: v.w))
    }

    /// Farthest any counting touch got from where it landed (mm).
    var largestTravel: Double {
        var d = 0.0
        for t in tracks where t.exclusion == nil { d = max(d, t.mm.distance(to: t.landingMM)) }
        return d
    }
}
