// libyaml: its scanner is the one YAMLComposer parses with, so this check and the composer agree on
// what is an anchor or an alias.
import CLibYAML

/// Finds YAML anchors (`&name`) and aliases (`*name`) before YAMLComposer builds any node.
///
/// libinput record never writes them (tools/libinput-record.c prints plain mappings and lists), and they
/// are what makes a small file expensive: composing a document expands every alias into the tree it
/// names, and Yams (the composer used before) hashed each mapping key in full, so a 1 KB file of nested aliases ("billion laughs")
/// ran for minutes, and a 15 KB one whose event lists were aliases grew past 240 MB in one minute. The
/// check runs libyaml's token scanner only: linear in the file, constant memory, no nodes.
enum YAMLAliasCheck {
    /// The first anchor or alias in `text`: its 1-based line and how it is written (`&a`, `*a`).
    /// Nil when there is none, and when the scanner stops at a syntax error first: the composer then reports that
    /// error at the same place, since it reads the same tokens in the same order.
    static func firstAnchorOrAlias(in text: String) -> (line: Int, token: String)? {
        var text = text
        return text.withUTF8 { bytes in
            // Neither character anywhere (the usual case): no anchor or alias can exist.
            guard bytes.contains(UInt8(ascii: "&")) || bytes.contains(UInt8(ascii: "*")) else { return nil }
            return scan(bytes)
        }
    }

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, token: String)? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
        while true {
            var token = yaml_token_t()
            guard yaml_parser_scan(&parser, &token) == 1 else { return nil }
            defer { yaml_token_delete(&token) }
            switch token.type {
            case YAML_ANCHOR_TOKEN:
                return (Int(token.start_mark.line) + 1, "&" + name(token.data.anchor.value))
            case YAML_ALIAS_TOKEN:
                return (Int(token.start_mark.line) + 1, "*" + name(token.data.alias.value))
            case YAML_STREAM_END_TOKEN, YAML_NO_TOKEN:
                return nil
            default:
                continue
            }
        }
    }

    private static func name(_ value: UnsafeMutablePointer<yaml_char_t>?) -> String {
        guard let value else { return "" }
        let text = String(cString: value)
        return text.utf8.count > 40 ? String(text.prefix(40)) + "..." : text
    }
}
