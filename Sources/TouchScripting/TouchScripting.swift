// Test devices and scripted finger input, shipped because `multitouchctl` writes the project's
// fixtures (`generate`), its benchmark recordings (`bench`, `bench-routing`) and the feel scenarios
// (`feel`, through GestureFeel) with them; the tests reach them through MultitouchTestKit, which
// re-exports this module:
// - `TestDevices`: descriptions of each device class (protocol B touchscreen, touchpads, protocol A,
//   semi-mt, resolution 0, single touch).
// - `TouchScripter`: finger scenarios in percent and virtual time, encoded for the device's protocol.
// - `RandomTouchScript` + `SplitMix64`: seeded random scenarios and garbage for property tests.
// - `Fixtures`: the scripted recordings of checks/fixtures; `BenchmarkRecordings`: those of the benchmarks.
