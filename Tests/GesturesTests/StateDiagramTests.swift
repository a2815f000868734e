import Testing

@testable import Gestures

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// docs/state-machines/gesture.md must name every state: adding a case without drawing it fails here.
@Suite("State diagram")
struct StateDiagramTests {
    private func diagram() throws -> String {
        // Tests/GesturesTests/StateDiagramTests.swift -> repository root
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        path += "/docs/state-machines/gesture.md"
        let file = try #require(fopen(path, "r"), "cannot open \(path)")
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text
    }

    @Test func everyStateCaseIsInTheDiagram() throws {
        let text = try diagram()
        let names =
            SegmentStateMachine.State.Name.allCases.map(\.rawValue)
            + LongPressRecognizer.State.Name.allCases.map(\.rawValue)
            + TapRecognizer.State.Name.allCases.map(\.rawValue)
            + TransformAnimator.State.Name.allCases.map(\.rawValue)
        for name in names {
            // Drawn as a node of a transition, not just mentioned in prose.
            #expect(
                text.contains("--> \(name)") && text.contains("    \(name) -->"),
                "state \(name) is not drawn in docs/state-machines/gesture.md")
        }
        #expect(text.contains("```mermaid"))
    }
}
