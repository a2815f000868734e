import Testing
@testable import MultitouchServer

@Test func MultitouchServerModuleLoads() { #expect(Bool(true)) }
