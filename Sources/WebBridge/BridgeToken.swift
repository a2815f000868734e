#if canImport(Glibc)
import Glibc
import SystemCalls
#endif

/// The secret a browser must carry to open the bridge's WebSocket: TCP has no peer credentials, so
/// without it any local user who reaches the port would act with the bridge user's daemon access.
///
/// A browser carries it in the URL query only (`?token=…`, the URL the bridge prints); `multitouch.js`
/// forwards the page's token to the `/ws` URL. Never in a cookie: cookies are not port-scoped, so the
/// browser would hand it to every other server on the same host, whose owner could replay it (issue
/// 28). The comparison takes the same time whatever the candidate holds, so timing does
/// not reveal how much of a guess was right.
public struct BridgeToken: Sendable, Equatable {
    /// The token's text: URL-safe characters only (it travels in queries and cookies unescaped).
    public let value: String

    /// Why a token could not be made or read, naming the file and what to change.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        /// The message.
        public let description: String
    }

    /// A token with this text.
    /// - Throws: `Problem` when the text is shorter than 16 characters or has characters other than
    ///   letters, digits, `-` and `_`.
    public init(_ value: String) throws {
        guard value.utf8.count >= 16,
            value.utf8.allSatisfy({ Self.alphabet.utf8.contains($0) })
        else {
            throw Problem(
                description: "a bridge token needs at least 16 characters, only letters, digits, '-' and '_'")
        }
        self.value = value
    }

    /// A fresh random token: 32 characters of 64 (192 bits) from the system's random source.
    public static func random() -> BridgeToken {
        var generator = SystemRandomNumberGenerator()
        let characters = Array(alphabet)
        let text = String((0..<32).map { _ in characters[Int(generator.next(upperBound: UInt64(characters.count)))] })
        // The alphabet and length satisfy `init`'s rules by construction.
        return BridgeToken(unchecked: text)
    }

    private init(unchecked value: String) { self.value = value }

    /// The characters a token may use.
    static let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// True when `candidate` is this token. Constant time in the candidate's content: every byte of
    /// the longer of the two is looked at whatever matched before.
    public func matches(_ candidate: Substring?) -> Bool {
        guard let candidate else { return false }
        let expected = Array(value.utf8)
        let given = Array(candidate.utf8)
        var difference: UInt8 = expected.count == given.count ? 0 : 1
        for index in 0..<max(expected.count, given.count) {
            let a = index < expected.count ? expected[index] : 0
            let b = index < given.count ? given[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// The token a request carries: the `token` query parameter of `uri` (never a cookie, see above).
    static func carried(uri: String) -> Substring? {
        if let query = uri.split(separator: "?", maxSplits: 1).dropFirst().first {
            let beforeFragment = query.prefix { $0 != "#" }
            for pair in beforeFragment.split(separator: "&") where pair.hasPrefix("token=") {
                return pair.dropFirst("token=".count)
            }
        }
        return nil
    }

    /// Reads the token from `path`, or writes a fresh one there (mode 0600, O_EXCL) when the file does
    /// not exist. The file must be a regular file (not a symlink) owned by the bridge's user or root,
    /// that others cannot read or write and its group cannot write: a token anyone can read admits
    /// anyone, and one another user planted (in /tmp, say) would admit that user. Its owner may make it
    /// readable by a group (0640), such as the socket's.
    /// - Throws: `Problem` naming the file and what is wrong with it.
    public static func load(path: String) throws -> BridgeToken {
        do {
            let created = try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o600)
            defer { Sys.close(created) }
            let token = random()
            do {
                try Sys.writeAll(created, Array((token.value + "\n").utf8), path)
            } catch {
                try? Sys.unlink(path)
                throw Problem(description: "cannot write the token file \(path): \(error.reason)")
            }
            return token
        } catch let error as SystemError where error.errno != EEXIST {
            throw Problem(description: "cannot create the token file \(path): \(error.reason)")
        } catch is SystemError {
            // It exists: read it below.
        }
        // Non-blocking and no symlinks: a FIFO or a link planted at the path must not hang or redirect us.
        let fd: Int32
        do {
            fd = try Sys.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        } catch {
            throw Problem(description: "cannot open the token file \(path): \(error.reason)")
        }
        defer { Sys.close(fd) }
        guard let status = try? Sys.fstat(fd, path), status.st_mode & S_IFMT == S_IFREG else {
            throw Problem(description: "the token file \(path) is not a regular file")
        }
        guard status.st_uid == geteuid() || status.st_uid == 0 else {
            throw Problem(
                description:
                    "the token file \(path) belongs to uid \(status.st_uid), not to this user (uid \(geteuid())) or root; another user could have planted it: remove it or use a path of your own"
            )
        }
        guard status.st_mode & 0o020 == 0 else {
            throw Problem(
                description:
                    "the token file \(path) is writable by its group (mode \(String(status.st_mode & 0o777, radix: 8))); chmod g-w it"
            )
        }
        guard status.st_mode & 0o007 == 0 else {
            throw Problem(
                description:
                    "the token file \(path) is open to other users (mode \(String(status.st_mode & 0o777, radix: 8))); chmod o-rwx it"
            )
        }
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = (try? Sys.read(fd, into: &bytes, path)) ?? 0
        guard count > 0 else { throw Problem(description: "the token file \(path) is empty or unreadable") }
        let text = String(decoding: bytes[0..<count], as: UTF8.self).trimmingWhitespace()
        do {
            return try BridgeToken(text)
        } catch let problem as Problem {
            throw Problem(description: "the token file \(path): \(problem.description)")
        }
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
