import MultitouchCore

/// How a device's touches are sampled, read from the samples themselves (no device name, no quirk):
/// how often a moving finger's position repeats, and how regular the report intervals are. It sorts
/// the recordings `multitouchctl predict-report` scores into the device classes a predictor must hold
/// on (docs/PREDICTION.md "Device classes").
public struct SampleCadence: Hashable, Sendable {
    /// Consecutive sample pairs scored while the finger moves (at least `movingSpeed` over the
    /// `movingWindow` around the pair).
    public private(set) var movingSteps = 0
    /// Of those, the pairs whose position did not change: the sensor has not read anew (a sensor
    /// slower than the report rate) or the motion is below the resolution.
    public private(set) var repeatedSteps = 0
    /// Report intervals (µs) between consecutive samples of a touch, gaps of 50 ms and more left out.
    private var intervals: [Int64] = []

    /// A finger moving at least this fast (mm/s, over `movingWindow`) is moving.
    public static let movingSpeed = 20.0
    /// The window (µs) the speed is read over, centred on the pair.
    public static let movingWindow: Int64 = 40_000
    /// Share of repeated positions in motion from which a device is a repeated-position device.
    public static let repeatedShare = 0.3
    /// Share of report intervals more than 25 % away from the median from which its reports are uneven.
    public static let unevenShare = 0.25
    /// Fewer moving steps than this cannot tell a cadence: the device keeps its plain class.
    public static let minimumSteps = 30

    public init() {}

    /// The cadence of a set of touch paths (each in time order, one sample per instant).
    public init(tracks: [[TrackSample]]) {
        for track in tracks { add(track: track) }
    }

    /// Adds one touch's path.
    public mutating func add(track: [TrackSample]) {
        guard track.count > 1 else { return }
        let half = Self.movingWindow / 2
        for i in 1..<track.count {
            let dt = track[i].time - track[i - 1].time
            if dt > 0 && dt < 50_000 { intervals.append(dt) }
            let mid = track[i - 1].time + dt / 2
            guard let before = PredictionEvaluation.position(in: track, at: mid - half),
                let after = PredictionEvaluation.position(in: track, at: mid + half)
            else { continue }
            guard before.distance(to: after) >= Self.movingSpeed * Double(Self.movingWindow) / 1e6 else { continue }
            movingSteps += 1
            if track[i].millimeters == track[i - 1].millimeters { repeatedSteps += 1 }
        }
    }

    /// Adds another cadence's samples.
    public mutating func merge(_ other: SampleCadence) {
        movingSteps += other.movingSteps
        repeatedSteps += other.repeatedSteps
        intervals += other.intervals
    }

    /// Share of the moving steps that repeat the position (0 without moving steps).
    public var repeatedFraction: Double { movingSteps == 0 ? 0 : Double(repeatedSteps) / Double(movingSteps) }

    /// Median report interval, µs (0 without intervals).
    public var medianInterval: Int64 {
        guard !intervals.isEmpty else { return 0 }
        return intervals.sorted()[intervals.count / 2]
    }

    /// Share of the report intervals more than 25 % away from the median.
    public var unevenFraction: Double {
        let median = medianInterval
        guard median > 0 else { return 0 }
        let off = intervals.filter { abs($0 - median) * 4 > median }.count
        return Double(off) / Double(intervals.count)
    }

    /// The class of a device of touch type `type` with this cadence.
    public func deviceClass(type: TouchType) -> CadenceClass {
        let known = movingSteps >= Self.minimumSteps
        switch type {
        case .indirect:
            return known && repeatedFraction >= Self.repeatedShare ? .touchpadRepeated : .touchpad
        case .direct:
            if known && repeatedFraction >= Self.repeatedShare { return .touchscreenRepeated }
            if known && unevenFraction >= Self.unevenShare { return .touchscreenUneven }
            return .touchscreen
        }
    }
}

/// The device classes of docs/PREDICTION.md, from the touch type and `SampleCadence`.
public enum CadenceClass: String, Hashable, Sendable, CaseIterable, Comparable {
    /// A touchscreen whose moving finger gets a new position at (nearly) every report, at an even rate.
    case touchscreen
    /// A touchscreen reporting at uneven intervals (a quarter of them 25 % off the median or more), as
    /// pen displays' finger sensors do (Wacom ISDv4: 8 and 12 ms).
    case touchscreenUneven = "touchscreen, uneven intervals"
    /// A touchscreen whose moving finger keeps its position over 30 % of the reports or more: the
    /// position sensor runs slower than the report rate (issue 30's 250 Hz panel repeats 61 %).
    case touchscreenRepeated = "touchscreen, repeated positions"
    /// A touchpad.
    case touchpad
    /// A touchpad whose moving finger keeps its position over 30 % of the reports or more.
    case touchpadRepeated = "touchpad, repeated positions"

    public static func < (a: CadenceClass, b: CadenceClass) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}
