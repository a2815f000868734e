import Foundation
import MultitouchCore
import MultitouchTestKit
import Testing

@testable import WireProtocol

/// ShortestDouble must spell every double exactly as `description` does: the JSON encoder switched to
/// it without changing a byte of any replay. A differential test against the standard library, over
/// random bit patterns (every exponent), the pipeline's value ranges, and the edges where shortest
/// round-trip printers usually go wrong (powers of ten and two and their neighbours, the interval
/// ends of even significands such as 1e23, subnormals, the notation switches at 1e-4 and 2^53).
@Suite struct ShortestDoubleTests {
    /// Random values per family; MT_DOUBLE_CHECKS raises it (e.g. 50000000 for a long run).
    private let randomCount = ProcessInfo.processInfo.environment["MT_DOUBLE_CHECKS"].flatMap { Int($0) } ?? 300_000

    private struct Mismatches {
        var count = 0
        var checked = 0
        var examples: [String] = []
        var buffer = [UInt8](repeating: 0, count: ShortestDouble.maximumLength)

        mutating func check(_ value: Double) {
            let length = buffer.withUnsafeMutableBufferPointer { ShortestDouble.write(value, into: $0.baseAddress!) }
            let bytes = buffer[..<length]
            checked += 1
            let expected = value.description
            if !bytes.elementsEqual(expected.utf8) {
                count += 1
                if examples.count < 10 {
                    let bits = String(value.bitPattern, radix: 16)
                    examples.append("0x\(bits): \(String(decoding: bytes, as: UTF8.self)) != \(expected)")
                }
            }
        }
    }

    @Test func matchesDescriptionOnRandomBitPatterns() {
        var random = SplitMix64(seed: 0x5EED_D0B1E)
        var m = Mismatches()
        for _ in 0..<randomCount { m.check(Double(bitPattern: random.next())) }
        #expect(m.count == 0, "\(m.count) of \(m.checked): \(m.examples)")
    }

    @Test func matchesDescriptionOnPipelineRanges() {
        var random = SplitMix64(seed: 42)
        var m = Mismatches()
        for _ in 0..<randomCount {
            m.check(Double.random(in: -5000...5000, using: &random))
            m.check(Double.random(in: 0...1, using: &random))
            // Short decimals (sensor units divided by a resolution, scales near 1).
            var short = Double(Int.random(in: -10_000_000...10_000_000, using: &random))
            for _ in 0..<Int.random(in: 0...12, using: &random) { short /= 10 }
            m.check(short)
        }
        #expect(m.count == 0, "\(m.count) of \(m.checked): \(m.examples)")
    }

    @Test func matchesDescriptionAtTheEdges() throws {
        var m = Mismatches()
        for e in -325...309 {
            let power = try #require(Double("1e\(e)"))
            var value = power
            for _ in 0..<3 { value = value.nextDown }
            for _ in 0..<7 {
                m.check(value)
                m.check(-value)
                value = value.nextUp
            }
        }
        for e in -1074...1023 {
            let power = Double(sign: .plus, exponent: e, significand: 1)
            for value in [power, power.nextUp, power.nextDown, 3 * power, 5 * power] where value.isFinite {
                m.check(value)
            }
        }
        for i in -70_000...70_000 { m.check(Double(i)) }
        var random = SplitMix64(seed: 7)
        for _ in 0..<randomCount / 10 { m.check(Double(bitPattern: random.next() & (1 << 52 - 1))) }  // subnormals
        for i in 1...2000 { m.check(Double(bitPattern: UInt64(i))) }
        let specials: [Double] = [
            0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e15, 1e16, 9_007_199_254_740_992,
            18_014_398_509_481_984, 1e23, 0.1, 0.2, 0.3, 0.0001, 0.00001, 123_456.789, 2.5e-7,
        ]
        for value in specials { m.check(value) }
        #expect(m.count == 0, "\(m.count) of \(m.checked): \(m.examples)")
        #expect(m.checked > 150_000)
    }

    @Test func theWriterUsesItForFractionsAndKeepsIntegersShort() {
        var w = JSONWriter(capacity: 1)  // grows from its minimum while writing
        w.beginArray()
        for value in [-0.5, 1e-7, 2, -0.0, 1e15, 112.1875, 0.43833943833943834, 1e300] { w.double(value) }
        w.time(Timestamp(microseconds: 1_000_000_000_005))
        w.int(-42)
        w.endArray()
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == "[-0.5,1e-07,2,0,1000000000000000.0,112.1875,0.43833943833943834,1e+300,1000000.000005,-42]")
        #expect(w.count == text.utf8.count)
    }
}
