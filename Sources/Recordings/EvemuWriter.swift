import MultitouchCore

/// Writes evemu 1.3 text that `RecordingReader` (and evemu-device/evemu-play) read back.
///
/// The layout is evemu 2.x's `evemu_write` (src/evemu.c): `# EVEMU 1.3`, `N:`, `I:` (4 hex fields), `P:`
/// lines of 8 property bytes, for each event type a run of `B:` lines with 8 bitmask bytes each (type 0's
/// line is evemu 2.x's constant `B: 00 0b ...`), one `A:` line per ABS code with resolution, then
/// `E: <sec>.<usec %06u> <type %04x> <code %04x> <value %04d>` lines. libevemu's own evemu_read and
/// evemu_write reproduce every non-comment line byte for byte (`LibevemuTests`).
///
/// Reading the output back gives the same description and events, with the normalizations evemu's
/// format forces: every device has `EV_SYN` with all `SYN_*` codes, an event type without codes is not
/// recorded, and every ABS code gets an axis (0...1, evemu's placeholder, when the description has none). Line breaks in the
/// name are written as spaces (a name is one line). Times must not be negative (evemu writes `%lu`
/// seconds); a negative time is written with a minus sign, which the reader rejects.
public enum EvemuWriter {
    /// The event types evemu 2.x writes `B:` lines for, with libevdev's maximum code of each
    /// (`libevdev_event_type_get_max`): SYN KEY REL ABS MSC SW LED SND REP FF.
    static let standardTypes: [UInt16] = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x11, 0x12, 0x14, 0x15]

    public static func write(description: DeviceDescription, events: [InputEvent]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(2048 + events.count * 30)
        let name = String(description.name.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        out.append(contentsOf: "# EVEMU 1.3\n".utf8)
        out.append(contentsOf: "# Input device name: \"\(name)\"\n".utf8)
        out.append(contentsOf: "N: \(name)\n".utf8)
        let id = description.identity
        out.append(contentsOf: "I: ".utf8)
        for (index, v) in [id.bustype, id.vendor, id.product, id.version].enumerated() {
            if index > 0 { out.append(0x20) }
            appendHex(&out, UInt32(v), width: 4)
        }
        out.append(0x0a)

        // P: the property bitmask, at least one line (INPUT_PROP_CNT is 32 bits = 4 bytes, padded to 8).
        let propertyBytes = mask(of: description.properties, minimumBits: Int(InputProperty.max) + 1)
        for chunk in stride(from: 0, to: propertyBytes.count, by: 8) {
            out.append(contentsOf: "P:".utf8)
            for byte in propertyBytes[chunk..<chunk + 8] {
                out.append(0x20)
                appendHex(&out, UInt32(byte), width: 2)
            }
            out.append(0x0a)
        }

        // B: evemu 2.x writes type 0 as a constant "0b" line ("Write EV_SYN/SYN_REPORT only. Just because
        // older versions printed out exactly that", evemu.c write_mask); every other type its codes.
        out.append(contentsOf: "B: 00 0b 00 00 00 00 00 00 00\n".utf8)
        let types = Set(description.codes.filter { !$0.value.isEmpty }.keys).subtracting([EventType.syn])
        for type in Set(standardTypes).subtracting([EventType.syn]).union(types).sorted() {
            let maxCode = EventType.maxCode(for: type)
            let bytes = mask(of: description.codes[type] ?? [], minimumBits: Int(maxCode) + 1)
            for chunk in stride(from: 0, to: bytes.count, by: 8) {
                out.append(contentsOf: "B: ".utf8)
                appendHex(&out, UInt32(type), width: 2)
                for byte in bytes[chunk..<chunk + 8] {
                    out.append(0x20)
                    appendHex(&out, UInt32(byte), width: 2)
                }
                out.append(0x0a)
            }
        }

        // A: one per ABS code, "min max fuzz flat resolution" (evemu 1.1+ adds the resolution).
        for code in (description.codes[EventType.abs] ?? []).sorted() {
            let axis = description.axes[code] ?? EvemuParser.placeholderAxis
            out.append(contentsOf: "A: ".utf8)
            appendHex(&out, UInt32(code), width: 2)
            out.append(contentsOf: " \(axis.minimum) \(axis.maximum) \(axis.fuzz) \(axis.flat) \(axis.resolution)\n".utf8)
        }

        for event in events {
            out.append(contentsOf: "E: ".utf8)
            let t = event.time.microseconds
            if t < 0 {
                out.append(contentsOf: event.time.description.utf8)
            } else {
                appendDecimal(&out, UInt64(t / 1_000_000), width: 1)
                out.append(UInt8(ascii: "."))
                appendDecimal(&out, UInt64(t % 1_000_000), width: 6)
            }
            out.append(0x20)
            appendHex(&out, UInt32(event.type), width: 4)
            out.append(0x20)
            appendHex(&out, UInt32(event.code), width: 4)
            out.append(0x20)
            // "%04d": zero padded to four characters including the sign, so -1 is "-001".
            if event.value < 0 {
                out.append(UInt8(ascii: "-"))
                appendDecimal(&out, UInt64(event.value.magnitude), width: 3)
            } else {
                appendDecimal(&out, UInt64(event.value), width: 4)
            }
            out.append(0x0a)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A little-endian bitmask of `bits`, at least `minimumBits` wide, padded to whole 8-byte lines.
    static func mask(of bits: Set<UInt16>, minimumBits: Int) -> [UInt8] {
        let highest = bits.max().map { Int($0) + 1 } ?? 0
        let byteCount = (max(minimumBits, highest) + 7) / 8
        var bytes = [UInt8](repeating: 0, count: max(8, (byteCount + 7) / 8 * 8))
        for bit in bits { bytes[Int(bit) / 8] |= 1 << (bit % 8) }
        return bytes
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    @inline(__always) private static func appendHex(_ out: inout [UInt8], _ value: UInt32, width: Int) {
        var digits = 1
        while digits < 8 && value >> (4 * UInt32(digits)) != 0 { digits += 1 }
        for shift in stride(from: max(digits, width) - 1, through: 0, by: -1) {
            out.append(hexDigits[Int((value >> (4 * UInt32(shift))) & 0xf)])
        }
    }

    @inline(__always) private static func appendDecimal(_ out: inout [UInt8], _ value: UInt64, width: Int) {
        var buffer: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var v = value
        withUnsafeMutableBytes(of: &buffer) { raw in
            repeat {
                raw[count] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                count += 1
            } while v != 0
            while count < width {
                raw[count] = UInt8(ascii: "0")
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(raw[i]) }
        }
    }
}
