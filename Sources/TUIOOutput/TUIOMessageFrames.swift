import MultitouchCore
import TUIO
import WireProtocol

/// `multitouchctl tuio` reads the daemon's socket, so it has messages, not the pipeline's frames:
/// the one place a `touches` message becomes a TUIO frame (the daemon sends its typed frames).
extension TUIOFrame {
    /// A `touches` message of the socket protocol, its published locations normalized over `area`.
    public init(message: TouchesMessage, area: TUIOArea) {
        self.init(
            time: message.time,
            cursors: message.touches.map {
                TUIOCursorSample(id: $0.id, phase: $0.phase, position: area.normalize($0.location))
            })
    }

    /// A `touches` message by its `nx`/`ny` (0...1 over the axis ranges, before any output mapping).
    public init(axesOf message: TouchesMessage) {
        self.init(
            time: message.time,
            cursors: message.touches.map { TUIOCursorSample(id: $0.id, phase: $0.phase, position: $0.normalized) })
    }
}
