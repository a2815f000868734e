import Testing
@testable import MultitouchCore

@Test func MultitouchCoreModuleLoads() { #expect(Bool(true)) }
