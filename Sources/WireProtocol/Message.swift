import Gestures
import MultitouchCore

/// Wire protocol version carried in the hello.
public enum ProtocolVersion {
    public static let current = 1
}
