import MultitouchCore

/// Test devices and scripted finger input, shared by the test targets and by `multitouchctl` (which
/// writes the project's fixtures with it):
/// - `TestDevices`: descriptions of each device class (protocol B touchscreen, touchpads, protocol A,
///   semi-mt, resolution 0, single touch).
/// - `TouchScripter`: finger scenarios in percent and virtual time, encoded for the device's protocol.
/// - `RandomTouchScript` + `SplitMix64`: seeded random scenarios and garbage for property tests.
/// - `TouchFrames`: events -> touch frames through `FrameAssembler` and `ContactTracker`, and the
///   touch-phase invariants as a checker.
public enum TestKit {}
