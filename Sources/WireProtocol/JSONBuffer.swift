/// The bytes a `JSONWriter` writes: the text in `storage[..<count]`, the rest room to write into
/// through a pointer. One bounds-and-uniqueness check per value instead of Array.append's per byte
/// (those were half of the encoder's instructions). Growing and handing out the text is its one job.
struct JSONBuffer {
    /// The text written so far.
    var bytes: [UInt8] { Array(storage[..<count]) }
    /// Bytes written so far.
    private(set) var count = 0
    private var storage: [UInt8]

    init(capacity: Int) {
        storage = Array(repeating: 0, count: max(64, capacity))
    }

    /// Writes at most `maximumCount` bytes at the end through `body`, which returns how many it wrote.
    @inline(__always)
    mutating func append(reserving maximumCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < maximumCount { grow(maximumCount) }
        let start = count
        count = start + storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    private mutating func grow(_ needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(storage.count, needed)))
    }

    /// Calls `body` with the text written so far, without copying it.
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Forgets the text written so far but keeps the storage.
    mutating func removeAll() { count = 0 }
}
