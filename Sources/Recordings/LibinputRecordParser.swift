import MultitouchCore

/// Reads `libinput record` YAML, file version 1 (libinput's `tools/libinput-record.c`,
/// `FILE_VERSION_NUMBER 1`): `devices[].evdev` holds the description, `devices[].events[].evdev` the
/// events as `[sec, usec, type, code, value]`. Keys this reader does not need are ignored.
struct LibinputRecordParser {
    let file: String

    /// The only file version libinput has written so far.
    static let supportedVersion = 1

    static func parse(text: String, file: String) throws(RecordingError) -> Recording {
        try LibinputRecordParser(file: file).run(text)
    }

    private func run(_ text: String) throws(RecordingError) -> Recording {
        // Before anything is composed: a composer that expanded aliases would blow up (YAMLAliasCheck).
        if let found = YAMLAliasCheck.firstAnchorOrAlias(in: text) {
            throw RecordingError(
                file: file, line: found.line,
                message:
                    "YAML anchors and aliases are not supported (libinput record never writes them); found '\(found.token)'"
            )
        }
        let root: YAMLNode
        do {
            guard let node = try YAMLComposer.compose(text) else {
                throw RecordingError(file: file, line: 0, message: "empty libinput record file")
            }
            root = node
        } catch let error as RecordingError {
            throw error
        } catch let error as YAMLError {
            throw yamlError(error)
        } catch {
            throw RecordingError(file: file, line: 0, message: "cannot parse YAML: \(error)")
        }
        guard case .mapping(let top) = root else {
            throw RecordingError(
                file: file, line: line(root), message: "expected a YAML mapping with 'version: 1' at the top level")
        }
        guard let versionNode = value(top, "version") else {
            throw RecordingError(file: file, line: 1, message: "libinput record file has no 'version' key")
        }
        let version = try integer(versionNode, what: "version")
        guard version == Int64(Self.supportedVersion) else {
            throw RecordingError(
                file: file, line: line(versionNode),
                message:
                    "unknown libinput record version \(version) (this reader knows version \(Self.supportedVersion))")
        }
        guard let devicesNode = value(top, "devices") else {
            throw RecordingError(file: file, line: line(root), message: "libinput record file has no 'devices' key")
        }
        guard case .sequence(let deviceList) = devicesNode, !deviceList.isEmpty else {
            throw RecordingError(
                file: file, line: line(devicesNode), message: "'devices' must be a non-empty list of devices")
        }
        var notes: [String] = []
        if let countNode = value(top, "ndevices"), let count = try? integer(countNode, what: "ndevices"),
            count != Int64(deviceList.count)
        {
            notes.append("\(file): ndevices says \(count) but the file holds \(deviceList.count) device(s)")
        }
        var devices: [RecordedDevice] = []
        for (index, deviceNode) in deviceList.enumerated() {
            devices.append(try device(deviceNode, index: index))
        }
        return Recording(format: .libinputRecord, devices: devices, notes: notes)
    }

    private func device(_ node: YAMLNode, index: Int) throws(RecordingError) -> RecordedDevice {
        let path = "devices[\(index)]"
        guard case .mapping(let device) = node else {
            throw RecordingError(
                file: file, line: line(node), message: "\(path): expected a mapping with 'evdev' and 'events'")
        }
        guard let evdevNode = value(device, "evdev"), case .mapping(let evdev) = evdevNode else {
            throw RecordingError(file: file, line: line(node), message: "\(path): expected an 'evdev' mapping")
        }
        // name
        guard let nameNode = value(evdev, "name"), case .scalar(let nameScalar) = nameNode else {
            throw RecordingError(file: file, line: line(evdevNode), message: "\(path).evdev: expected 'name: <string>'")
        }
        // id: [bus, vendor, product, version]
        guard let idNode = value(evdev, "id"), case .sequence(let idList) = idNode, idList.count == 4 else {
            throw RecordingError(
                file: file, line: line(value(evdev, "id") ?? evdevNode),
                message: "\(path).evdev: expected 'id: [bustype, vendor, product, version]' with 4 numbers")
        }
        var id: [UInt16] = []
        for item in idList {
            let v = try integer(item, what: "\(path).evdev.id", range: 0...0xffff)
            id.append(UInt16(v))
        }
        // codes: {type: [codes]}
        var codes: [UInt16: Set<UInt16>] = [:]
        if let codesNode = value(evdev, "codes") {
            switch codesNode {
            case .mapping(let codeMap):
                for (key, list) in codeMap {
                    let type = try integer(key, what: "\(path).evdev.codes type", range: 0...Int64(EventType.max))
                    var set = Set<UInt16>()
                    switch list {
                    case .sequence(let items):
                        for item in items {
                            let code = try integer(item, what: "\(path).evdev.codes[\(type)] code", range: 0...0xffff)
                            set.insert(UInt16(code))
                        }
                    case .scalar(let s) where s.string.isEmpty || s.string == "null" || s.string == "~":
                        break
                    default:
                        throw RecordingError(
                            file: file, line: line(list),
                            message: "\(path).evdev.codes[\(type)]: expected a list of codes")
                    }
                    codes[UInt16(type)] = set
                }
            default:
                throw RecordingError(
                    file: file, line: line(codesNode),
                    message: "\(path).evdev.codes: expected a mapping {type: [codes]}")
            }
        } else {
            throw RecordingError(
                file: file, line: line(evdevNode), message: "\(path).evdev: expected a 'codes' mapping")
        }
        // absinfo: {code: [min, max, fuzz, flat, resolution]}
        var axes: [UInt16: AxisInfo] = [:]
        if let absNode = value(evdev, "absinfo"), !isNull(absNode) {
            guard case .mapping(let absMap) = absNode else {
                throw RecordingError(
                    file: file, line: line(absNode),
                    message: "\(path).evdev.absinfo: expected a mapping {code: [min, max, fuzz, flat, resolution]}")
            }
            for (key, list) in absMap {
                let code = try integer(key, what: "\(path).evdev.absinfo code", range: 0...Int64(EvemuParser.absMax))
                guard case .sequence(let items) = list, items.count == 5 else {
                    throw RecordingError(
                        file: file, line: line(list),
                        message:
                            "\(path).evdev.absinfo[\(code)]: expected [min, max, fuzz, flat, resolution] (5 numbers)")
                }
                var n: [Int32] = []
                for item in items {
                    n.append(Int32(try integer(item, what: "\(path).evdev.absinfo[\(code)]", range: Self.int32Range)))
                }
                axes[UInt16(code)] = AxisInfo(minimum: n[0], maximum: n[1], fuzz: n[2], flat: n[3], resolution: n[4])
            }
        }
        for code in codes[EventType.abs] ?? [] where axes[code] == nil {
            axes[code] = EvemuParser.placeholderAxis
        }
        // properties: [..]
        var properties = Set<UInt16>()
        if let propNode = value(evdev, "properties"), !isNull(propNode) {
            guard case .sequence(let items) = propNode else {
                throw RecordingError(
                    file: file, line: line(propNode), message: "\(path).evdev.properties: expected a list of numbers")
            }
            for item in items {
                properties.insert(UInt16(try integer(item, what: "\(path).evdev.properties", range: 0...0xffff)))
            }
        }
        let description = DeviceDescription(
            name: nameScalar.string,
            identity: DeviceIdentity(bustype: id[0], vendor: id[1], product: id[2], version: id[3]),
            properties: properties, codes: codes, axes: axes)

        // events: [{evdev: [[sec, usec, type, code, value], ...]}, ...]
        var events: [InputEvent] = []
        var lastTime = Int64.min
        if let eventsNode = value(device, "events"), !isNull(eventsNode) {
            guard case .sequence(let list) = eventsNode else {
                throw RecordingError(file: file, line: line(eventsNode), message: "\(path).events: expected a list")
            }
            for (frameIndex, frameNode) in list.enumerated() {
                guard case .mapping(let frame) = frameNode else {
                    throw RecordingError(
                        file: file, line: line(frameNode),
                        message: "\(path).events[\(frameIndex)]: expected a mapping such as 'evdev: [...]'")
                }
                guard let evdevEvents = value(frame, "evdev"), !isNull(evdevEvents) else { continue }
                guard case .sequence(let items) = evdevEvents else {
                    throw RecordingError(
                        file: file, line: line(evdevEvents),
                        message:
                            "\(path).events[\(frameIndex)].evdev: expected a list of [sec, usec, type, code, value]")
                }
                for (eventIndex, item) in items.enumerated() {
                    let location = "\(path).events[\(frameIndex)].evdev[\(eventIndex)]"
                    guard case .sequence(let f) = item, f.count == 5 else {
                        throw RecordingError(
                            file: file, line: line(item),
                            message: "\(location): expected [sec, usec, type, code, value]")
                    }
                    let sec = try integer(f[0], what: "\(location) sec", range: 0...999_999_999_999)
                    let usec = try integer(f[1], what: "\(location) usec", range: 0...999_999)
                    let type = try integer(f[2], what: "\(location) type", range: 0...Int64(EventType.max))
                    let code = try integer(f[3], what: "\(location) code", range: 0...0xffff)
                    let value = try integer(f[4], what: "\(location) value", range: Self.int32Range)
                    let time = sec * 1_000_000 + usec
                    if time < lastTime {
                        throw RecordingError(
                            file: file, line: line(item),
                            message:
                                "\(location): time goes backwards: \(Timestamp(microseconds: time)) after \(Timestamp(microseconds: lastTime)); events must be in non-decreasing time"
                        )
                    }
                    lastTime = time
                    events.append(
                        InputEvent(
                            time: Timestamp(microseconds: time), type: UInt16(type), code: UInt16(code),
                            value: Int32(value)))
                }
            }
        }
        return RecordedDevice(description: description, events: events)
    }

    // MARK: Helpers

    static let int32Range: ClosedRange<Int64> = Int64(Int32.min)...Int64(Int32.max)

    private func value(_ mapping: YAMLNode.Mapping, _ key: String) -> YAMLNode? {
        for (k, v) in mapping {
            if case .scalar(let s) = k, s.string == key { return v }
        }
        return nil
    }

    private func isNull(_ node: YAMLNode) -> Bool {
        if case .scalar(let s) = node, s.style == .plain, s.string.isEmpty || s.string == "null" || s.string == "~" {
            return true
        }
        return false
    }

    private func line(_ node: YAMLNode) -> Int { node.mark?.line ?? 0 }

    private func integer(
        _ node: YAMLNode, what: String, range: ClosedRange<Int64>? = nil
    ) throws(RecordingError) -> Int64 {
        guard case .scalar(let s) = node, let v = Int64(s.string.trimmingWhitespace()) else {
            let found: String
            switch node {
            case .scalar(let s): found = "'\(EvemuParser.excerpt(s.string))'"
            case .mapping: found = "a mapping"
            case .sequence: found = "a list"
            case .alias: found = "an alias"
            }
            throw RecordingError(file: file, line: line(node), message: "\(what): expected an integer, found \(found)")
        }
        if let range, !range.contains(v) {
            throw RecordingError(
                file: file, line: line(node),
                message: "\(what): \(v) out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return v
    }

    private func yamlError(_ error: YAMLError) -> RecordingError {
        let location = error.context.map { " (\($0.text), from line \($0.line))" } ?? ""
        return RecordingError(file: file, line: error.line, message: "invalid YAML: \(error.problem)\(location)")
    }
}
