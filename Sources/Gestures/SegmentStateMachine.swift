import MultitouchCore

/// The unified segment state machine of one device (DESIGN.md "Unified gesture state machine";
/// diagram: docs/state-machines/gesture.md, which a test keeps in step with `State.Name`).
///
/// NIO style: one `Event` enum in, one `Action` out of one exhaustive `handle`, no I/O, no clock.
/// The engine classifies each frame first (a finger set change, motion, the slop crossed) and carries
/// out the action; the machine only decides what follows what. Timers are data: `settling` carries
/// its deadline and the expiry comes back as `.settleTimeout`.
struct SegmentStateMachine: Sendable {
    enum State: Sendable {
        /// No finger on the surface, no session.
        case idle
        /// Fingers are down but nothing moved beyond the slop and no threshold passed: no segment
        /// runs, so a tap never opens one.
        case possible
        /// A segment of fingers runs (pan, pinchRotate or quickZoom).
        case running(GestureMode)
        /// The finger count dropped: the running segment stays open while the fingers that stay drive
        /// it, until the debounce passes (then the next segment begins), another finger lands, or the
        /// last one lifts (then no segment of its own is made).
        case settling(deadline: Timestamp)
        /// A touch was cancelled: the remaining fingers are ignored until the last one lifts.
        case draining

        /// Case names without payloads, for logs and for the diagram test.
        enum Name: String, CaseIterable, Sendable {
            case idle, possible, running, settling, draining
        }

        var name: Name {
            switch self {
            case .idle: return .idle
            case .possible: return .possible
            case .running: return .running
            case .settling: return .settling
            case .draining: return .draining
            }
        }
    }

    /// What happened, as the engine classified it.
    enum Event: Sendable {
        /// Fingers landed on an empty surface (a session begins).
        case landed
        /// The fingers that count changed and some remain: `decreased` when fewer count than before
        /// (a lift, or a touch became a thumb), else a landing or a swap; `next` is the mode the
        /// fingers now down call for.
        case fingersChanged(decreased: Bool, next: GestureMode)
        /// The last finger that counts lifted.
        case allLifted
        /// Same fingers; they moved (or not) without passing the slop.
        case moved
        /// The fingers passed the slop or a threshold: the segment of `mode` begins.
        case slopCrossed(GestureMode)
        /// The debounce of a finger-count decrease passed; `next` is the mode the remaining fingers
        /// call for.
        case settleTimeout(next: GestureMode)
        /// A touch was cancelled (palm, device removal, resync loss).
        case cancelled

        var name: String {
            switch self {
            case .landed: return "landed"
            case .fingersChanged(let decreased, let next):
                return (decreased ? "fingersDecreased(" : "fingersChanged(") + next.rawValue + ")"
            case .allLifted: return "allLifted"
            case .moved: return "moved"
            case .slopCrossed(let mode): return "slopCrossed(\(mode.rawValue))"
            case .settleTimeout(let next): return "settleTimeout(\(next.rawValue))"
            case .cancelled: return "cancelled"
            }
        }
    }

    /// What the engine does.
    enum Action: Sendable, Equatable {
        /// Nothing to publish.
        case none
        /// Take the current fingers as the reference of a possible segment (nothing published).
        case measureNew
        /// Follow the fingers of the running segment (publish `changed` when the transform changed).
        case follow
        /// Begin the segment at the slop crossing (`began` at the reference, then `changed`).
        case beginAtCrossing
        /// The running segment stays open, driven by the fingers that stay from where they were in
        /// the previous frame; arm the debounce.
        case settle
        /// End the open segment and begin the next over the current fingers (no debounce: a landing,
        /// a swap, or the debounce passed).
        case endAndBegin
        /// End the open segment (the last finger lifted).
        case end
        /// Cancel the open segment, if any.
        case cancel
        /// A state that cannot receive this event: a multitouchd bug, logged by the engine.
        case invalid
    }

    private(set) var state: State = .idle

    /// Handles one event; the caller carries out the returned action. `deadline` is the debounce
    /// deadline for `.settle`.
    mutating func handle(_ event: Event, settleDeadline deadline: Timestamp) -> Action {
        switch state {
        case .idle: return idle(event)
        case .possible: return possible(event)
        case .running: return running(event, deadline)
        case .settling: return settling(event, deadline)
        case .draining: return draining(event)
        }
    }

    private mutating func idle(_ event: Event) -> Action {
        switch event {
        case .landed:
            state = .possible
            return .measureNew
        case .cancelled:
            state = .draining
            return .none
        case .allLifted:
            return .none  // fingers landed and lifted within one frame
        case .fingersChanged, .moved, .slopCrossed, .settleTimeout:
            return .invalid
        }
    }

    private mutating func possible(_ event: Event) -> Action {
        switch event {
        case .moved:
            return .none
        case .slopCrossed(let mode):
            state = .running(mode)
            return .beginAtCrossing
        case .fingersChanged:
            // Nothing was published: the new finger set simply becomes the reference.
            return .measureNew
        case .allLifted:
            state = .idle
            return .none
        case .cancelled:
            state = .draining
            return .none
        case .landed, .settleTimeout:
            return .invalid
        }
    }

    private mutating func running(_ event: Event, _ deadline: Timestamp) -> Action {
        switch event {
        case .moved, .slopCrossed:
            return .follow
        case .fingersChanged(let decreased, let next):
            if decreased {
                state = .settling(deadline: deadline)
                return .settle
            }
            state = .running(next)
            return .endAndBegin
        case .allLifted:
            state = .idle
            return .end
        case .cancelled:
            state = .draining
            return .cancel
        case .landed, .settleTimeout:
            return .invalid
        }
    }

    private mutating func settling(_ event: Event, _ deadline: Timestamp) -> Action {
        switch event {
        case .moved, .slopCrossed:
            return .follow
        case .fingersChanged(let decreased, let next):
            if decreased {
                // Another finger lifted: the debounce starts again from here.
                state = .settling(deadline: deadline)
                return .settle
            }
            state = .running(next)
            return .endAndBegin
        case .settleTimeout(let next):
            state = .running(next)
            return .endAndBegin
        case .allLifted:
            state = .idle
            return .end
        case .cancelled:
            state = .draining
            return .cancel
        case .landed:
            return .invalid
        }
    }

    private mutating func draining(_ event: Event) -> Action {
        switch event {
        case .allLifted:
            state = .idle
            return .none
        case .moved, .fingersChanged, .slopCrossed, .cancelled:
            return .none
        case .landed, .settleTimeout:
            return .invalid
        }
    }
}
