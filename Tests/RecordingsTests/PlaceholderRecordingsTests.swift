import Testing
@testable import Recordings

@Test func RecordingsModuleLoads() { #expect(Bool(true)) }
