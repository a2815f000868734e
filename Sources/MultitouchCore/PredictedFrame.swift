extension Touch {
    /// The touch began in an exclusive region: only that region's client ever sees it (DESIGN.md
    /// invariant 11). Secure touches have ids from `TouchIDSource.firstSecureID` on.
    @inlinable public var isSecure: Bool { id >= TouchIDSource.firstSecureID }
}

/// A frame's live touches where a predictor expects them `horizonMilliseconds` after the frame (the
/// frame's time plus the horizon; ids as in the frame, ending touches left out): what each client
/// stream that asked for that horizon gets as `predicted`, and what its gesture session is fed for the
/// predicted matrix.
public struct PredictedFrame: Hashable, Sendable {
    public var horizonMilliseconds: Int
    public var frame: TouchFrame

    public init(horizonMilliseconds: Int, frame: TouchFrame) {
        self.horizonMilliseconds = horizonMilliseconds
        self.frame = frame
    }

    /// The predicted location of each live touch of `touches` (ending ones skipped), in their order; a
    /// touch the prediction does not know (it began after) keeps its own location.
    public func locations(of touches: [Touch]) -> [Point] {
        var out: [Point] = []
        out.reserveCapacity(touches.count)
        for touch in touches where !touch.phase.isTerminal {
            var found = touch.location
            for p in frame.touches where p.id == touch.id {
                found = p.location
                break
            }
            out.append(found)
        }
        return out
    }

    /// The predicted touches among `ids` (live touches of one stream), for that stream's gesture session.
    public func frame(of touches: [Touch]) -> TouchFrame {
        var predicted: [Touch] = []
        predicted.reserveCapacity(touches.count)
        for p in frame.touches where touches.contains(where: { $0.id == p.id && !$0.phase.isTerminal }) {
            predicted.append(p)
        }
        // The fingers the device counts beyond its touches (tool keys) stay; those left out go.
        return TouchFrame(
            time: frame.time, touches: predicted,
            fingerCount: max(predicted.count, frame.fingerCount - (frame.touches.count - predicted.count)),
            isButtonPressed: frame.isButtonPressed)
    }
}
