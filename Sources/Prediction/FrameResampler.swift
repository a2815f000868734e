import MultitouchCore

/// Where a touch is at a display frame, from its raw samples: the building block of frame-aligned
/// resampling (issue 20 item 3: `FrameAligner` applies it to a message stream, docs/PREDICTION.md). The rules and
/// numbers are Android's input resampling (frameworks/native/libs/input/InputTransport.cpp): sample at
/// frame time minus 5 ms (`RESAMPLE_LATENCY`); interpolate between the samples around that time when
/// one came after it; otherwise extrapolate the last two samples, no further than 8 ms
/// (`RESAMPLE_MAX_PREDICTION`) and half their gap past the newest; not at all when that gap is under
/// 2 ms (`RESAMPLE_MIN_DELTA`) or over 20 ms (`RESAMPLE_MAX_DELTA`); and never at a time before one
/// already delivered, so a touch does not move backwards. Pure: no clock.
public enum FrameResampler {
    public static let latency: Int64 = 5_000
    public static let minimumDelta: Int64 = 2_000
    public static let maximumDelta: Int64 = 20_000
    public static let maximumPrediction: Int64 = 8_000

    /// The touch's resampled position for the frame at `frameTime` (µs), and the time it stands for.
    /// `samples` are the touch's samples in time order (those after the sample time included, when the
    /// caller has them); `notBefore` is the time of the position delivered at the previous frame. Nil
    /// without a sample at or before the sample time.
    public static func position(
        samples: [TrackSample], frameTime: Int64, notBefore: Int64? = nil
    )
        -> (millimeters: Point, time: Int64)?
    {
        guard let b = blend(times: samples.map(\.time), frameTime: frameTime, notBefore: notBefore) else { return nil }
        let from = samples[b.from].millimeters
        return (from + (samples[b.to].millimeters - from) * b.alpha, b.time)
    }

    /// The same rules on sample times alone: the resampled value is `value[from] + (value[to] -
    /// value[from]) * alpha` for any quantity affine in the touch's position (published location,
    /// normalized, millimetres), at `time`. `alpha` is in 0...1 when interpolating (or holding: `from ==
    /// to`), above 1 when extrapolating. Nil without a sample at or before the sample time.
    public static func blend(
        times: [Int64], frameTime: Int64, notBefore: Int64? = nil
    )
        -> (from: Int, to: Int, alpha: Double, time: Int64)?
    {
        var sampleTime = frameTime - latency
        if let notBefore, sampleTime < notBefore { sampleTime = notBefore }
        guard let i = times.lastIndex(where: { $0 <= sampleTime }) else { return nil }
        let current = times[i]
        if i + 1 < times.count {
            // A sample after the sample time: interpolate (Android: only when they are 2 ms or more apart).
            let delta = times[i + 1] - current
            guard delta >= minimumDelta else { return (i, i, 0, current) }
            return (i, i + 1, Double(sampleTime - current) / Double(delta), sampleTime)
        }
        guard i > 0 else { return (i, i, 0, current) }
        let delta = current - times[i - 1]
        guard delta >= minimumDelta, delta <= maximumDelta else { return (i, i, 0, current) }
        let time = min(sampleTime, current + min(delta / 2, maximumPrediction))
        guard time > current else { return (i, i, 0, current) }
        return (i - 1, i, 1 + Double(time - current) / Double(delta), time)
    }
}
