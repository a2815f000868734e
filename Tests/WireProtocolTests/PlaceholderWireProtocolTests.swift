import Testing
@testable import WireProtocol

@Test func WireProtocolModuleLoads() { #expect(Bool(true)) }
