import MultitouchCore

/// UIKit-style velocity of one segment, from the samples of its most recent motion: the change between
/// the newest sample and the oldest one inside the window, divided by their real time difference.
/// A fixed ring of samples, so tracking allocates nothing per frame.
struct VelocityTracker: Sendable {
    struct Sample: Sendable {
        var time: Int64
        var translation: Point
        var scale: Double
        var rotation: Double
    }

    /// 64 samples cover a 100 ms window up to 640 Hz; at faster rates the window just gets shorter.
    static let capacity = 64
    private var samples: [Sample]
    private var head = 0
    private var count = 0

    init() {
        samples = Array(
            repeating: Sample(time: 0, translation: .zero, scale: 1, rotation: 0), count: Self.capacity)
    }

    mutating func reset() {
        head = 0
        count = 0
    }

    mutating func add(time: Timestamp, translation: Point, scale: Double, rotation: Double) {
        samples[head] = Sample(time: time.microseconds, translation: translation, scale: scale, rotation: rotation)
        head = (head + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Velocity over the last `windowMicroseconds`; zero with fewer than two samples or when time does
    /// not advance between them.
    func velocity(windowMicroseconds: Int64) -> GestureVelocity {
        guard count >= 2 else { return .zero }
        let newestIndex = (head - 1 + Self.capacity) % Self.capacity
        let newest = samples[newestIndex]
        var reference = newest
        var found = false
        var k = 1
        while k < count {
            let s = samples[(newestIndex - k + Self.capacity) % Self.capacity]
            if newest.time &- s.time > windowMicroseconds {
                // Nothing else inside the window: measure against the last sample before it, so the
                // first motion after a pause still has a velocity (averaged over the pause).
                if !found { reference = s }
                break
            }
            reference = s
            found = true
            k += 1
        }
        let dt = Double(newest.time &- reference.time) / 1_000_000
        guard dt > 0 else { return .zero }
        let v = GestureVelocity(
            translation: (newest.translation - reference.translation) / dt,
            scale: (newest.scale - reference.scale) / dt,
            rotation: (newest.rotation - reference.rotation) / dt)
        return v.translation.isFinite && v.scale.isFinite && v.rotation.isFinite ? v : .zero
    }
}
