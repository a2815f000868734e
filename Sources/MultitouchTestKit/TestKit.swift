import MultitouchCore

/// Test devices and scripted finger input, shared by the test targets and by `multitouchctl` (which
/// writes the project's fixtures with it).
public enum TestKit {}
