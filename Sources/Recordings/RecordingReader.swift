import MultitouchCore

/// Reads any recording format the project knows, choosing by content.
public enum RecordingReader {
    /// Reads `path`; `descriptionPath` supplies the device for an events-only evemu file.
    public static func read(path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        throw RecordingError(file: path, line: 0, message: "not implemented yet")
    }

    /// Parses recording text; `name` is used in errors.
    public static func parse(text: String, name: String, descriptionText: String? = nil, descriptionName: String? = nil)
        throws(RecordingError) -> Recording
    {
        throw RecordingError(file: name, line: 0, message: "not implemented yet")
    }
}
