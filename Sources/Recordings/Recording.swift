import MultitouchCore

/// One device's part of a recording: its description and its events in file order.
public struct RecordedDevice: Hashable, Sendable {
    public var description: DeviceDescription
    public var events: [InputEvent]

    public init(description: DeviceDescription, events: [InputEvent]) {
        self.description = description
        self.events = events
    }
}

/// A parsed recording: evemu (one device) or libinput record (one or more devices).
public struct Recording: Hashable, Sendable {
    public enum Format: String, Hashable, Sendable { case evemu, libinputRecord = "libinput-record" }

    public var format: Format
    public var devices: [RecordedDevice]
    /// Things the reader noticed and the replay must report (e.g. a trailing partial frame it dropped).
    public var notes: [String]

    public init(format: Format, devices: [RecordedDevice], notes: [String] = []) {
        self.format = format
        self.devices = devices
        self.notes = notes
    }
}

/// A recording that cannot be read: names the file, the line (1-based; 0 when the problem is the whole
/// file) and what was expected.
public struct RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

