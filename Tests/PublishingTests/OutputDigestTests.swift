import Testing
import WireProtocol

@testable import Publishing

/// `check`'s determinism test on digests: equal outputs compare equal, any difference is found and
/// located to its MiB, while the digest holds no text.
@Suite("output digest")
struct OutputDigestTests {
    static func digest(_ batches: [[Message]]) -> OutputDigest {
        var digest = OutputDigest()
        for batch in batches { digest.append(batch) }
        digest.finish()
        return digest
    }

    static func pongs(_ ids: Range<Int>) -> [Message] { ids.map { .pong(PongMessage(id: RequestID($0))) } }

    @Test func equalOutputsMatchAndCountTheirBytes() {
        let a = Self.digest([Self.pongs(0..<3), Self.pongs(3..<5)])
        let b = Self.digest([Self.pongs(0..<3), Self.pongs(3..<5)])
        #expect(a.firstDifference(from: b) == nil)
        #expect(a.byteCount == Self.pongs(0..<5).map { ($0.jsonLine() + "\n").utf8.count }.reduce(0, +))
    }

    @Test func aChangedMessageOrALengthDifferenceIsFound() {
        let a = Self.digest([Self.pongs(0..<5)])
        #expect(a.firstDifference(from: Self.digest([Self.pongs(0..<4) + Self.pongs(9..<10)])) == 0)
        #expect(a.firstDifference(from: Self.digest([Self.pongs(0..<4)])) != nil)
    }

    @Test func aDifferenceIsLocatedToItsMiB() {
        // 3 MiB and more of output; the difference is in the last message.
        let many = Self.pongs(0..<200_000)
        var changed = many
        changed[changed.count - 1] = .pong(PongMessage(id: RequestID(-1)))
        let a = Self.digest([many])
        let b = Self.digest([changed])
        let offset = a.firstDifference(from: b)
        #expect(a.byteCount > 3 * OutputDigest.chunkBytes)
        #expect(
            offset.map {
                $0 >= (a.byteCount / OutputDigest.chunkBytes) * OutputDigest.chunkBytes - OutputDigest.chunkBytes
            } == true)
    }
}
