import Glibc
import Logging
import SystemCalls

/// Log lines for the systemd journal: stderr with a `<N>` syslog priority prefix (sd-daemon(3)) and
/// no timestamp, because journald stamps every line itself. Used when stderr is the journal stream
/// (`JOURNAL_STREAM`, systemd.exec(5)), so `journalctl -p warning -u multitouchd` filters by level.
struct JournalLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    let label: String

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// True when stderr is the stream systemd connected to the journal: JOURNAL_STREAM names its
    /// device and inode ("DEV:INODE"), which a redirect in between would change.
    static var stderrIsJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        guard let status = try? Sys.fstat(2, "stderr") else { return false }
        return String(cString: value) == "\(status.st_dev):\(status.st_ino)"
    }

    /// syslog(3) priorities; swift-log's trace has none of its own, so it shares debug's.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// One journal line: `<N>` then the same text the terminal handler prints after its timestamp
    /// and level (journalctl shows both from the record's own fields).
    static func line(
        level: Logger.Level, label: String, message: Logger.Message, metadata: Logger.Metadata, source: String
    ) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(message)".replacingNewlines()
        return "<\(priority(level))>\(label): \(fields.isEmpty ? "" : fields + " ")[\(source)] \(text)\n"
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        let bytes = Array(
            Self.line(level: event.level, label: label, message: event.message, metadata: all, source: event.source)
                .utf8)
        // One write per line: journald reads lines, and concurrent loggers must not interleave.
        _ = bytes.withUnsafeBytes { try? Sys.write(2, $0, "stderr") }
    }
}

extension String {
    /// A multi-line message would become several journal records, the later ones at the default
    /// priority; keep it one record.
    fileprivate func replacingNewlines() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " | ")
    }
}
