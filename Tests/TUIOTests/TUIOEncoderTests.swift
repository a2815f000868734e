import Configuration
import MultitouchCore
import TUIOOutput
import Testing
import WireProtocol

@testable import TUIO

/// A minimal OSC 1.0 reader for the tests: bundles of messages with i, f and s arguments.
enum Decoded: Equatable {
    case int(Int32), float(Float), string(String)
}

struct DecodedMessage: Equatable {
    var address: String
    var arguments: [Decoded]
}

func readString(_ bytes: [UInt8], _ at: inout Int) throws -> String {
    guard let end = bytes[at...].firstIndex(of: 0) else { throw DecodeFailure.unterminated }
    let text = String(decoding: bytes[at..<end], as: UTF8.self)
    let next = (end / 4 + 1) * 4
    guard next <= bytes.count, bytes[end..<next].allSatisfy({ $0 == 0 }) else { throw DecodeFailure.padding }
    at = next
    return text
}

func readUInt32(_ bytes: [UInt8], _ at: inout Int) throws -> UInt32 {
    guard at + 4 <= bytes.count else { throw DecodeFailure.short }
    let v = bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    at += 4
    return v
}

enum DecodeFailure: Error { case unterminated, padding, short, notBundle, badTag, size }

func decodeBundle(_ bytes: [UInt8]) throws -> [DecodedMessage] {
    var at = 0
    guard try readString(bytes, &at) == "#bundle" else { throw DecodeFailure.notBundle }
    let high = try readUInt32(bytes, &at)
    let low = try readUInt32(bytes, &at)
    #expect(high == 0 && low == 1, "time tag is not 'immediately'")
    var messages: [DecodedMessage] = []
    while at < bytes.count {
        let size = Int(try readUInt32(bytes, &at))
        guard size % 4 == 0, at + size <= bytes.count else { throw DecodeFailure.size }
        let element = Array(bytes[at..<at + size])
        at += size
        var p = 0
        let address = try readString(element, &p)
        let tags = try readString(element, &p)
        guard tags.first == "," else { throw DecodeFailure.badTag }
        var arguments: [Decoded] = []
        for tag in tags.dropFirst() {
            switch tag {
            case "i": arguments.append(.int(Int32(bitPattern: try readUInt32(element, &p))))
            case "f": arguments.append(.float(Float(bitPattern: try readUInt32(element, &p))))
            case "s": arguments.append(.string(try readString(element, &p)))
            default: throw DecodeFailure.badTag
            }
        }
        guard p == element.count else { throw DecodeFailure.size }
        messages.append(DecodedMessage(address: address, arguments: arguments))
    }
    return messages
}

func sample(_ id: UInt64, _ phase: TouchPhase, _ x: Double, _ y: Double) -> TUIOCursorSample {
    TUIOCursorSample(id: id, phase: phase, position: Point(x: x, y: y))
}

func time(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }

/// The `set` arguments after "set", per session id.
func sets(_ messages: [DecodedMessage]) -> [Int32: [Decoded]] {
    var out: [Int32: [Decoded]] = [:]
    for m in messages where m.arguments.first == .string("set") {
        if case .int(let s) = m.arguments[1] { out[s] = Array(m.arguments.dropFirst(2)) }
    }
    return out
}

func alive(_ messages: [DecodedMessage]) -> [Int32] {
    guard let m = messages.first(where: { $0.arguments.first == .string("alive") }) else { return [] }
    return m.arguments.dropFirst().compactMap { if case .int(let s) = $0 { s } else { nil } }
}

func fseq(_ messages: [DecodedMessage]) -> Int32? {
    guard let m = messages.last, m.arguments.first == .string("fseq"), case .int(let f) = m.arguments[1] else {
        return nil
    }
    return f
}

@Suite struct OSCLayoutTests {
    /// Strings end with a NUL and pad to 4; a 4-byte string takes 8 (its NUL needs the next word).
    @Test func stringPadding() {
        var out: [UInt8] = []
        OSCMessage("/a", []).encode(into: &out)
        #expect(out == [0x2f, 0x61, 0, 0, 0x2c, 0, 0, 0])
        out = []
        OSCMessage("/abc", [.string("set")]).encode(into: &out)
        #expect(
            out == [0x2f, 0x61, 0x62, 0x63, 0, 0, 0, 0, 0x2c, 0x73, 0, 0, 0x73, 0x65, 0x74, 0])
        #expect(OSCMessage("/abc", [.string("set")]).encodedCount == out.count)
    }

    /// Numbers are big-endian; floats as their IEEE 754 bits.
    @Test func numbersAreBigEndian() {
        var out: [UInt8] = []
        OSCMessage("/x", [.int32(-2), .float32(1.5)]).encode(into: &out)
        #expect(out == [0x2f, 0x78, 0, 0, 0x2c, 0x69, 0x66, 0, 0xff, 0xff, 0xff, 0xfe, 0x3f, 0xc0, 0, 0])
    }

    /// A bundle: "#bundle", the immediate time tag, then each element's size and bytes.
    @Test func bundleLayout() {
        let bytes = OSC.bundle([OSCMessage("/a", [])])
        #expect(
            bytes == Array("#bundle".utf8) + [0] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 8]
                + [0x2f, 0x61, 0, 0, 0x2c, 0, 0, 0])
    }
}

@Suite struct TUIOEncoderTests {
    /// The first frame: source, alive, one set (zero velocity at began), fseq 1, byte for byte the
    /// TUIO 1.1 layout.
    @Test func firstFrameByteExact() throws {
        var encoder = TUIOCursorEncoder(source: "multitouchd:1@host")
        let out = encoder.encode(TUIOFrame(time: time(0), cursors: [sample(7, .began, 0.25, 0.5)]))
        #expect(out.count == 1)
        var expected = Array("#bundle".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 1]
        func element(_ body: [UInt8]) { expected += [0, 0, 0, UInt8(body.count)] + body }
        let address = Array("/tuio/2Dcur".utf8) + [0]
        element(
            address + Array(",ss".utf8) + [0] + Array("source".utf8) + [0, 0] + Array("multitouchd:1@host".utf8) + [
                0, 0,
            ])
        element(address + Array(",si".utf8) + [0] + Array("alive".utf8) + [0, 0, 0] + [0, 0, 0, 7])
        element(
            address + Array(",sifffff".utf8) + [0, 0, 0, 0] + Array("set".utf8) + [0] + [0, 0, 0, 7]
                + [0x3e, 0x80, 0, 0] + [0x3f, 0, 0, 0] + [UInt8](repeating: 0, count: 12))
        element(address + Array(",si".utf8) + [0] + Array("fseq".utf8) + [0, 0, 0, 0] + [0, 0, 0, 1])
        #expect(out[0] == expected)
    }

    /// Velocity is normalized units per second from the frames' times; motion acceleration the change
    /// of speed per second; fseq counts frames.
    @Test func velocityAndAcceleration() throws {
        var encoder = TUIOCursorEncoder(source: "s")
        _ = encoder.encode(TUIOFrame(time: time(0), cursors: [sample(1, .began, 0.1, 0.1)]))
        let second = try decodeBundle(
            encoder.encode(TUIOFrame(time: time(10), cursors: [sample(1, .moved, 0.2, 0.1)]))[0])
        #expect(fseq(second) == 2)
        // 0.1 in 10 ms: 10 per second along x; speed from 0 to 10 in 10 ms: 1000 per second squared.
        #expect(
            sets(second)[1] == [
                .float(0.2), .float(0.1), .float(Float(0.1 / 0.01)), .float(0), .float(Float(10 / 0.01)),
            ])
        let third = try decodeBundle(
            encoder.encode(TUIOFrame(time: time(20), cursors: [sample(1, .stationary, 0.2, 0.1)]))[0])
        #expect(fseq(third) == 3)
        #expect(sets(third)[1] == [.float(0.2), .float(0.1), .float(0), .float(0), .float(Float(-10 / 0.01))])
    }

    /// An ended or cancelled touch leaves `alive` in the frame that ends it and gets no `set`; the
    /// others stay.
    @Test func endedAndCancelledLeaveAliveAtOnce() throws {
        var encoder = TUIOCursorEncoder(source: "s")
        _ = encoder.encode(
            TUIOFrame(
                time: time(0),
                cursors: [sample(1, .began, 0.1, 0.1), sample(2, .began, 0.5, 0.5), sample(3, .began, 0.9, 0.9)]))
        let next = try decodeBundle(
            encoder.encode(
                TUIOFrame(
                    time: time(10),
                    cursors: [
                        sample(1, .cancelled, 0.1, 0.1), sample(2, .moved, 0.6, 0.5), sample(3, .ended, 0.9, 0.9),
                    ]
                ))[0])
        #expect(alive(next) == [2])
        #expect(Set(sets(next).keys) == [2])
        let last = try decodeBundle(
            encoder.encode(TUIOFrame(time: time(20), cursors: [sample(2, .ended, 0.6, 0.5)]))[0])
        #expect(alive(last) == [])
        #expect(sets(last).isEmpty)
        #expect(fseq(last) == 3)
    }

    /// Many touches: every datagram stays within the limit, each repeats source and the whole alive
    /// and ends with the frame's one fseq, and together they carry each set once, new cursors first.
    @Test func splitsFramesAcrossDatagrams() throws {
        var encoder = TUIOCursorEncoder(source: "multitouchd:1@host", maximumDatagramBytes: 600)
        let old = (1...5).map { sample(UInt64($0), .began, 0.1, 0.1) }
        _ = encoder.encode(TUIOFrame(time: time(0), cursors: old))
        let cursors =
            old.map { sample($0.id, .moved, 0.2, 0.2) } + (6...30).map { sample(UInt64($0), .began, 0.3, 0.3) }
        let datagrams = encoder.encode(TUIOFrame(time: time(10), cursors: cursors))
        #expect(datagrams.count > 1)
        var seen: [Int32] = []
        for datagram in datagrams {
            #expect(datagram.count <= 600)
            let messages = try decodeBundle(datagram)
            #expect(messages.first?.arguments == [.string("source"), .string("multitouchd:1@host")])
            #expect(alive(messages) == Array(1...30))
            #expect(fseq(messages) == 2)
            seen += messages.filter { $0.arguments.first == .string("set") }.compactMap {
                if case .int(let s) = $0.arguments[1] { s } else { nil }
            }
        }
        #expect(seen == Array(6...30) + Array(1...5))
    }

    /// docs/TUIO.md's figure: a 1472-byte datagram holds 22 touches with the source
    /// "multitouchd:1@host"; the 23rd splits the frame.
    @Test func ethernetDatagramCapacity() {
        for (count, datagrams) in [(22, 1), (23, 2)] {
            var encoder = TUIOCursorEncoder(source: "multitouchd:1@host")
            let out = encoder.encode(
                TUIOFrame(time: time(0), cursors: (1...count).map { sample(UInt64($0), .began, 0.5, 0.5) }))
            #expect(out.count == datagrams, "\(count) touches")
            #expect(out.allSatisfy { $0.count <= TUIOCursorEncoder.ethernetDatagramBytes })
        }
    }

    /// A frame without touches (the last finger lifted in the previous one) is still one bundle with
    /// an empty alive: the receiver learns that nothing is down.
    @Test func emptyFrameIsOneBundle() throws {
        var encoder = TUIOCursorEncoder(source: "s")
        let out = encoder.encode(TUIOFrame(time: time(0), cursors: []))
        #expect(out.count == 1)
        let messages = try decodeBundle(out[0])
        #expect(messages.count == 3)
        #expect(alive(messages) == [])
    }

    /// Session ids are the daemon's ids, kept within OSC's positive int32.
    @Test func sessionIDsWrapIntoInt32() {
        #expect(TUIOCursorEncoder.sessionID(42) == 42)
        #expect(TUIOCursorEncoder.sessionID(0x8000_0005) == 5)
    }

    /// Published locations normalize over the device's extent or a region's rectangle.
    @Test func areasNormalize() {
        let region = TUIOArea(origin: Point(x: 100, y: 50), width: 200, height: 100)
        #expect(region.normalize(Point(x: 200, y: 100)) == Point(x: 0.5, y: 0.5))
        #expect(TUIOArea(width: 0, height: 10).normalize(Point(x: 3, y: 5)) == Point(x: 0, y: 0.5))
        let message = TouchesMessage(
            device: 1, time: time(0), fingers: 1, isSemiMT: false,
            touches: [
                TouchPoint(
                    id: 3, phase: .began, location: Point(x: 150, y: 75), previousLocation: Point(x: 150, y: 75),
                    normalized: Point(x: 0.9, y: 0.9), millimeters: .zero, slot: 0, tapCount: 1, type: .direct)
            ])
        #expect(TUIOFrame(message: message, area: region).cursors == [sample(3, .began, 0.25, 0.25)])
        #expect(TUIOFrame(axesOf: message).cursors == [sample(3, .began, 0.9, 0.9)])
    }
}

@Suite struct TUIOTargetTests {
    @Test func parsing() {
        #expect(TUIOTarget(parsing: "3333") == TUIOTarget(host: "127.0.0.1", port: 3333))
        #expect(TUIOTarget(parsing: "localhost:3334") == TUIOTarget(host: "127.0.0.1", port: 3334))
        #expect(TUIOTarget(parsing: "render.local:3333") == TUIOTarget(host: "render.local", port: 3333))
        #expect(TUIOTarget(parsing: "3333")?.isLoopback == true)
        #expect(TUIOTarget(parsing: "192.168.1.20:3333")?.isLoopback == false)
        for bad in ["", ":3333", "host:", "host:0", "host:70000", "::1:3333", "a b:1"] {
            #expect(TUIOTarget(parsing: bad) == nil, "\(bad)")
        }
    }
}
