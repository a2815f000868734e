import CLibYAML

/// A YAML node, as `libinput record` files need them: scalars (their text and style), mappings (their
/// pairs in file order) and sequences, each with the line it starts on.
indirect enum YAMLNode {
    case scalar(YAMLScalar)
    case mapping(Mapping)
    case sequence(Sequence)
    /// `*name`: never expanded (YAMLAliasCheck refuses files with aliases before they are composed).
    case alias(YAMLMark)

    /// A mapping's (key, value) pairs in file order, and where it starts.
    struct Mapping: RandomAccessCollection {
        var pairs: [(key: YAMLNode, value: YAMLNode)]
        var mark: YAMLMark
        var startIndex: Int { pairs.startIndex }
        var endIndex: Int { pairs.endIndex }
        subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) { pairs[position] }
    }

    /// A sequence's items, and where it starts.
    struct Sequence: RandomAccessCollection {
        var items: [YAMLNode]
        var mark: YAMLMark
        var startIndex: Int { items.startIndex }
        var endIndex: Int { items.endIndex }
        subscript(position: Int) -> YAMLNode { items[position] }
    }

    /// Where the node starts.
    var mark: YAMLMark? {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(let mapping): mapping.mark
        case .sequence(let sequence): sequence.mark
        case .alias(let mark): mark
        }
    }
}

/// A scalar's text as written (no tag resolution: the reader converts what it needs) and its style.
struct YAMLScalar {
    enum Style { case plain, singleQuoted, doubleQuoted, literal, folded }
    var string: String
    var style: Style
    var mark: YAMLMark
}

/// A 1-based line in the YAML text.
struct YAMLMark {
    var line: Int
}

/// Why a YAML text could not be composed: libyaml's problem and where, and the construct it was in.
struct YAMLError: Error {
    var problem: String
    var line: Int
    /// What libyaml was reading ("while parsing a flow sequence") and where that began.
    var context: (text: String, line: Int)?
}

/// Builds the node tree of a one-document YAML text from libyaml's event parser (the events Yams
/// composed from, so the tree is the one Yams gave), iteratively and at most `maximumDepth` levels deep,
/// so no file can exhaust the stack. Duplicate keys in a mapping are an error, as they were with Yams.
enum YAMLComposer {
    /// Deepest nesting of sequences and mappings accepted (as the TOML reader's 64 levels).
    static let maximumDepth = 64

    /// The document's root node; nil for a text with no document.
    static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        var text = text
        let result = text.withUTF8 { bytes in Result { () throws(YAMLError) in try compose(bytes) } }
        return try result.get()
    }

    /// A collection being built: its start mark, and its items (a mapping's alternate keys and values).
    private struct Open {
        var isMapping: Bool
        var mark: YAMLMark
        var items: [YAMLNode] = []
    }

    private static func compose(_ bytes: UnsafeBufferPointer<UInt8>) throws(YAMLError) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YAMLError(problem: "out of memory", line: 0) }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
        var stack: [Open] = []
        var root: YAMLNode?
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else { throw error(of: parser) }
            defer { yaml_event_delete(&event) }
            let mark = YAMLMark(line: Int(event.start_mark.line) + 1)
            var node: YAMLNode?
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw YAMLError(problem: "expected a single document in the stream, found another", line: mark.line)
                }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text =
                    scalar.value.map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: Int(scalar.length)), as: UTF8.self)
                    } ?? ""
                node = .scalar(YAMLScalar(string: text, style: style(scalar.style), mark: mark))
            case YAML_ALIAS_EVENT:
                node = .alias(mark)
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                // A deeper tree would be freed recursively, and libinput record nests five levels.
                guard stack.count < maximumDepth else {
                    throw YAMLError(
                        problem: "sequences and mappings nested deeper than \(maximumDepth) levels", line: mark.line)
                }
                stack.append(Open(isMapping: event.type == YAML_MAPPING_START_EVENT, mark: mark))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let open = stack.popLast() else { continue }
                node =
                    open.isMapping
                    ? .mapping(YAMLNode.Mapping(pairs: try pairs(open), mark: open.mark))
                    : .sequence(YAMLNode.Sequence(items: open.items, mark: open.mark))
            default:
                continue
            }
            guard let node else { continue }
            if stack.isEmpty {
                root = node
            } else {
                stack[stack.count - 1].items.append(node)
            }
        }
    }

    /// A finished mapping's pairs; a key written twice is an error.
    private static func pairs(_ open: Open) throws(YAMLError) -> [(key: YAMLNode, value: YAMLNode)] {
        var pairs: [(key: YAMLNode, value: YAMLNode)] = []
        pairs.reserveCapacity(open.items.count / 2)
        var seen = Set<String>()
        var duplicates: [String] = []
        var index = 0
        while index + 1 < open.items.count {
            let key = open.items[index]
            if case .scalar(let scalar) = key, !seen.insert(scalar.string).inserted, !duplicates.contains(scalar.string)
            {
                duplicates.append(scalar.string)
            }
            pairs.append((key, open.items[index + 1]))
            index += 2
        }
        if !duplicates.isEmpty {
            throw YAMLError(problem: "duplicated key(s) \(duplicates.joined(separator: ", "))", line: open.mark.line)
        }
        return pairs
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLScalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    private static func error(of parser: yaml_parser_t) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        let context = parser.context.map { (text: String(cString: $0), line: Int(parser.context_mark.line) + 1) }
        switch parser.error {
        case YAML_READER_ERROR:
            return YAMLError(problem: "invalid input: \(problem)", line: 0)
        default:
            return YAMLError(problem: problem, line: Int(parser.problem_mark.line) + 1, context: context)
        }
    }
}
