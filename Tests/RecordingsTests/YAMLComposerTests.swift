import Testing

@testable import Recordings

/// The libyaml-based composer that replaced Yams (issue 29 item 9): the tree libinput record files need,
/// their lines, duplicate keys refused, and no recursion to exhaust.
@Suite("YAML composer")
struct YAMLComposerTests {
    @Test func composesMappingsSequencesAndScalarsWithTheirLines() throws {
        let text = """
            version: 1
            devices:
            - evdev:
                name: "Touch \\u00e9"
                id: [1, 2, 3, 4]
              events: ~
            """
        guard case .mapping(let top) = try #require(try YAMLComposer.compose(text)) else {
            Issue.record("the root is not a mapping")
            return
        }
        #expect(top.count == 2)
        guard case .scalar(let version) = top[0].value, case .sequence(let devices) = top[1].value,
            case .mapping(let device) = devices[0], case .mapping(let evdev) = device[0].value,
            case .scalar(let name) = evdev[0].value, case .sequence(let id) = evdev[1].value,
            case .scalar(let null) = device[1].value
        else {
            Issue.record("unexpected tree")
            return
        }
        #expect(version.string == "1" && version.style == .plain && version.mark.line == 1)
        #expect(devices.mark.line == 3)
        #expect(name.string == "Touch é" && name.style == .doubleQuoted && name.mark.line == 4)
        #expect(id.count == 4 && id.mark.line == 5)
        #expect(null.string == "~" && null.style == .plain)
    }

    @Test func duplicateKeysAreAnError() {
        #expect(throws: YAMLError.self) { try YAMLComposer.compose("a: 1\nb: 2\na: 3\n") }
        do {
            _ = try YAMLComposer.compose("x:\n  a: 1\n  a: 2\n")
            Issue.record("a duplicated key was accepted")
        } catch {
            #expect(error.problem == "duplicated key(s) a" && error.line == 2)
        }
    }

    @Test func syntaxErrorsNameTheLineAndTheConstruct() {
        do {
            _ = try YAMLComposer.compose("version: 1\ndevices: [1, 2\n")
            Issue.record("an unclosed flow sequence was accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.context?.text == "while parsing a flow sequence" && error.context?.line == 2)
        }
    }

    @Test func emptyTextHasNoRootAndASecondDocumentIsRefused() throws {
        #expect(try YAMLComposer.compose("") == nil)
        #expect(throws: YAMLError.self) { try YAMLComposer.compose("a: 1\n---\nb: 2\n") }
    }

    /// Nesting is bounded (a deep tree would be freed recursively): 64 levels compose, deeper is an
    /// error that names the limit, however deep the text goes.
    @Test func nestingIsBounded() throws {
        func nested(_ depth: Int) -> String {
            "a: " + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "\n"
        }
        guard case .mapping(let top) = try #require(try YAMLComposer.compose(nested(YAMLComposer.maximumDepth))) else {
            Issue.record("the root is not a mapping")
            return
        }
        var levels = 1
        var node = top[0].value
        while case .sequence(let items) = node {
            levels += 1
            guard let first = items.first else { break }
            node = first
        }
        #expect(levels == YAMLComposer.maximumDepth)
        for depth in [YAMLComposer.maximumDepth + 1, 200_000] {
            do {
                _ = try YAMLComposer.compose(nested(depth))
                Issue.record("nesting \(depth) deep was accepted")
            } catch {
                #expect(error.problem.contains("nested deeper than 64 levels"), "\(error)")
            }
        }
    }
}
