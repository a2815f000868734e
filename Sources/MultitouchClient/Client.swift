import WireProtocol

/// Swift client for the multitouchd socket.
public enum MultitouchClientLibrary {}
