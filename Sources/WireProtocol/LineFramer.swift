/// Splits a client's byte stream into request lines (docs/PROTOCOL.md "Requests"): one JSON object per
/// line, at most `maximumLineBytes` bytes *including* the newline, `\r\n` accepted, empty lines skipped.
///
/// A pure value: the daemon feeds it what each `read` returned, with the limit currently configured (a
/// reload applies to connected clients at their next read). With the default 65,536-byte limit a
/// line of 65,535 bytes plus its newline is accepted and one of 65,536 bytes plus newline is refused, as
/// is a partial line that already holds 65,536 bytes (its newline could only make it longer).
public struct LineFramer: Sendable {
    /// The partial line waiting for its newline.
    @usableFromInline var partial: [UInt8] = []

    public init() {}

    /// What a chunk of input produced.
    public enum Result: Equatable, Sendable {
        /// Complete lines, without newline (or `\r\n`), empty ones left out; possibly none.
        case lines([[UInt8]])
        /// A line passed the limit: the stream cannot be re-synchronised safely, so the caller closes.
        case lineTooLong
    }

    /// Bytes received and not yet part of a complete line.
    public var partialCount: Int { partial.count }

    /// Appends `chunk` and returns the lines it completed; `maximumLineBytes` is the longest line
    /// accepted, newline included. Inlinable so the caller's collection type is specialised: the
    /// unspecialised generic walk spent two mallocs a byte, 2.4 ms per 56 KB request line (issue 19).
    @inlinable
    public mutating func append(_ chunk: some Collection<UInt8>, maximumLineBytes: Int) -> Result {
        var lines: [[UInt8]] = []
        var start = chunk.startIndex
        var index = chunk.startIndex
        while index != chunk.endIndex {
            if chunk[index] == 0x0A {
                var line = partial
                line.append(contentsOf: chunk[start..<index])
                partial.removeAll(keepingCapacity: true)
                start = chunk.index(after: index)
                // +1: the limit counts the newline.
                if line.count + 1 > maximumLineBytes { return .lineTooLong }
                if line.last == 0x0D { line.removeLast() }  // tolerate CRLF (socat, telnet)
                if !line.isEmpty { lines.append(line) }
            }
            index = chunk.index(after: index)
        }
        partial.append(contentsOf: chunk[start...])
        if partial.count >= maximumLineBytes { return .lineTooLong }
        return .lines(lines)
    }
}
