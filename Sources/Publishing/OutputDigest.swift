import WireProtocol

/// A replay's output reduced to what `check`'s determinism test compares: its length and one hash per
/// MiB of JSON lines. Holding the text of both replays instead took 2.26 GiB for a 54 MB recording
/// (the output is tens of times the recording); the digest takes a few KB and still locates the
/// first difference to within a MiB.
struct OutputDigest {
    /// The output bytes one hash covers.
    static let chunkBytes = 1 << 20

    /// The hashing state, apart from the writer so both can be used at once.
    private struct Chunks {
        var byteCount = 0
        var hashes: [Int] = []
        var hasher = Hasher()
        var bytesInChunk = 0

        mutating func absorb(_ bytes: UnsafeRawBufferPointer) {
            var offset = 0
            while offset < bytes.count {
                let take = min(bytes.count - offset, OutputDigest.chunkBytes - bytesInChunk)
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
                offset += take
                bytesInChunk += take
                if bytesInChunk == OutputDigest.chunkBytes { close() }
            }
            byteCount += bytes.count
        }

        mutating func close() {
            hashes.append(hasher.finalize())
            hasher = Hasher()
            bytesInChunk = 0
        }
    }

    private var chunks = Chunks()
    private var writer = JSONWriter(capacity: 1 << 16)

    /// Bytes of output so far.
    var byteCount: Int { chunks.byteCount }
    /// Non-finite numbers written as `null` so far.
    var nonFiniteCount: Int { writer.nonFiniteCount }

    /// Adds one batch, one JSON line per message, as a socket client would receive them.
    mutating func append(_ batch: [Message]) {
        for message in batch {
            message.write(to: &writer)
            writer.newline()
        }
        writer.withBytes { chunks.absorb($0) }
        writer.removeAll()
    }

    /// Ends the output: the partial last chunk gets its hash.
    mutating func finish() {
        if chunks.bytesInChunk > 0 { chunks.close() }
    }

    /// Nil when both outputs are the same (equal length and hashes, within one process: `Hasher`
    /// is seeded per process); otherwise the offset of the chunk where they first differ.
    func firstDifference(from other: OutputDigest) -> Int? {
        if byteCount == other.byteCount && chunks.hashes == other.chunks.hashes { return nil }
        let same = zip(chunks.hashes, other.chunks.hashes).prefix { $0 == $1 }.count
        return min(same * Self.chunkBytes, byteCount, other.byteCount)
    }
}
