import Gestures
import MultitouchCore
import WireProtocol

/// One device's pure pipeline: frame assembly, contact tracking, gestures, wire messages.
public struct DevicePipeline {}
