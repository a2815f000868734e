import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG file parsed with Foundation's XMLParser into a flat list of elements, each with its
/// attributes, its classes, the classes of its ancestors and its text: enough to count and measure
/// what a plot drew without looking at pixels.
struct SVGDocument {
    struct Element {
        var name: String
        var attributes: [String: String]
        var classes: Set<String>
        /// Class lists of the enclosing elements, innermost last.
        var ancestors: [Set<String>]
        var text = ""
        /// Index of the parent in `elements`, nil for the root.
        var parent: Int?

        func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }

        func has(_ classes: String...) -> Bool { classes.allSatisfy(self.classes.contains) }

        func inside(_ cls: String) -> Bool { ancestors.contains { $0.contains(cls) } }

        /// A polyline's points.
        var points: [(x: Double, y: Double)] {
            (attributes["points"] ?? "").split(separator: " ").compactMap { pair in
                let xy = pair.split(separator: ",")
                guard xy.count == 2, let x = Double(xy[0]), let y = Double(xy[1]) else { return nil }
                return (x, y)
            }
        }
    }

    private(set) var elements: [Element] = []

    init(_ bytes: [UInt8]) throws {
        let delegate = Collector()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = delegate
        guard parser.parse() else {
            throw ParseError(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")")
        }
        elements = delegate.elements
    }

    struct ParseError: Error, CustomStringConvertible { var description: String }

    /// Elements named `name` carrying every class in `classes`.
    func all(_ name: String, _ classes: String...) -> [Element] {
        elements.filter { $0.name == name && classes.allSatisfy($0.classes.contains) }
    }

    /// The children of element `index`.
    func children(of index: Int) -> [Element] { elements.filter { $0.parent == index } }

    func index(of predicate: (Element) -> Bool) -> [Int] { elements.indices.filter { predicate(elements[$0]) } }

    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var stack: [Int] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let classes = Set((attributes["class"] ?? "").split(separator: " ").map(String.init))
            elements.append(
                Element(
                    name: name, attributes: attributes, classes: classes, ancestors: stack.map { elements[$0].classes },
                    parent: stack.last))
            stack.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let top = stack.last { elements[top].text += string }
        }
    }
}
