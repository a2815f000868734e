import MultitouchCore

/// Namespace for the daemon's event loop and socket server.
public enum MultitouchServer {}
