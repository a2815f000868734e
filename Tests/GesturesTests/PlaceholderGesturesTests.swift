import Testing
@testable import Gestures

@Test func GesturesModuleLoads() { #expect(Bool(true)) }
