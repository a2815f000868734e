import MultitouchCore
import TouchPipeline

/// The gesture deadline timer, one job: one timer for every device pipeline's `nextDeadline` (long
/// press, double-tap wait, churn debounce, the regions' engines), armed on the injected `DeviceLoop` at
/// the earliest (absolute CLOCK_MONOTONIC ns, the clock of the kernel's event times), and on expiry
/// each pipeline advanced through what is due (the pipeline guarantees each deadline moves on).
struct GestureDeadlineTimer {
    private unowned let loop: any DeviceLoop

    init(loop: any DeviceLoop) { self.loop = loop }

    /// A pipeline deadline in the loop's clock.
    static func nanoseconds(_ deadline: Timestamp) -> UInt64 { UInt64(max(0, deadline.microseconds)) * 1000 }

    /// Arms the timer at the earliest deadline of `pipelines`, or disarms it when none has one.
    func arm(for pipelines: some Sequence<DevicePipeline>) {
        var earliest: Timestamp?
        for pipeline in pipelines {
            guard let deadline = pipeline.nextDeadline else { continue }
            earliest = earliest.map { min($0, deadline) } ?? deadline
        }
        arm(at: earliest)
    }

    /// Arms the timer at `deadline` (the earliest of the pipelines', which `DeviceHost` reads in
    /// place after every read), or disarms it.
    func arm(at deadline: Timestamp?) {
        loop.armDeadlines(at: deadline.map(Self.nanoseconds))
    }

    /// The timer fired: acknowledges it (re-arming is the caller's, after it advanced every pipeline).
    func acknowledge() { loop.acknowledgeDeadlines() }

    /// Advances `pipeline` through every deadline due at `now` (monotonic ns), appending what fires.
    static func advanceDue(_ pipeline: inout DevicePipeline, now: UInt64, into out: inout [PipelineOutput]) {
        while let deadline = pipeline.nextDeadline, nanoseconds(deadline) <= now {
            pipeline.advance(to: deadline, into: &out)
        }
    }
}
