import Testing
@testable import Configuration

@Test func ConfigurationModuleLoads() { #expect(Bool(true)) }
