// The test kit: the generators of TouchScripting (shipped, since `multitouchctl generate`, `bench` and
// `feel` use them) re-exported, so a test target imports one module, plus what only tests need:
// - `TouchFrames`: events -> touch frames through `FrameAssembler` and `ContactTracker`, and the
//   touch-phase invariants as a checker.
@_exported import TouchScripting
