import Testing
@testable import DeviceInput

@Test func DeviceInputModuleLoads() { #expect(Bool(true)) }
