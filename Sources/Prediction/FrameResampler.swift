import MultitouchCore

/// Where a touch is at a display frame, from its raw samples: the building block of frame-aligned
/// resampling (issue 20 item 3; the daemon does not offer it yet, docs/PREDICTION.md). The rules and
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
        var sampleTime = frameTime - latency
        if let notBefore, sampleTime < notBefore { sampleTime = notBefore }
        guard let i = samples.lastIndex(where: { $0.time <= sampleTime }) else { return nil }
        let current = samples[i]
        if i + 1 < samples.count {
            // A sample after the sample time: interpolate (Android: only when they are 2 ms or more apart).
            let next = samples[i + 1]
            let delta = next.time - current.time
            guard delta >= minimumDelta else { return (current.millimeters, current.time) }
            let alpha = Double(sampleTime - current.time) / Double(delta)
            return (current.millimeters + (next.millimeters - current.millimeters) * alpha, sampleTime)
        }
        guard i > 0 else { return (current.millimeters, current.time) }
        let other = samples[i - 1]
        let delta = current.time - other.time
        guard delta >= minimumDelta, delta <= maximumDelta else { return (current.millimeters, current.time) }
        let limit = current.time + min(delta / 2, maximumPrediction)
        let time = min(sampleTime, limit)
        guard time > current.time else { return (current.millimeters, current.time) }
        let alpha = Double(time - current.time) / Double(delta)
        return (current.millimeters + (current.millimeters - other.millimeters) * alpha, time)
    }
}
