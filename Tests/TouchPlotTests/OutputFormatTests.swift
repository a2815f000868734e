import Foundation
import MultitouchTestKit
import Testing

@testable import TouchPlot

/// The number format the SVG's determinism rests on, and the PNG made from it.
@Suite struct OutputFormatTests {
    private func formatted(_ value: Double, digits: Int = 1) -> String {
        var w = SVGWriter(capacity: 32)
        w.number(value, digits: digits)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test func numbersHaveOneStableForm() {
        #expect(formatted(0) == "0")
        #expect(formatted(12) == "12")
        #expect(formatted(0.05) == "0.1")  // half away from zero
        #expect(formatted(-0.05) == "-0.1")
        #expect(formatted(-0.04) == "0")  // never "-0"
        #expect(formatted(1234.5678, digits: 2) == "1234.57")
        #expect(formatted(2.5, digits: 0) == "3")
        #expect(formatted(0.1 + 0.2, digits: 3) == "0.3")  // trailing zeros trimmed, no binary noise
        #expect(formatted(1.0 / 3, digits: 4) == "0.3333")
        #expect(formatted(0.0405, digits: 3) == "0.041")  // leading zeros of the fraction kept
        #expect(formatted(1e300) == "900000000000000")  // clamped, no exponent, no trap
        #expect(formatted(.nan) == "0")
        #expect(formatted(-.infinity) == "0")
    }

    @Test func paletteIsStableAndValid() {
        #expect(Palette.color(0) == "#4e79a7")
        for index in 0..<300 {
            let colour = Palette.color(index)
            #expect(colour.count == 7 && colour.hasPrefix("#") && colour.dropFirst().allSatisfy(\.isHexDigit))
        }
        #expect(Palette.hex(hue: 0, saturation: 1, lightness: 0.5) == "#ff0000")
        #expect(Palette.hex(hue: 120, saturation: 1, lightness: 0.5) == "#00ff00")
    }

    /// A path in a directory of its own: tests run in parallel, and a folder shared per process
    /// let one test's file stand in for another's (a PNG check read a parallel test's SVG).
    private func temporaryPath(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchplot-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    /// Width and height from a PNG's IHDR chunk (bytes 16...23, big endian).
    private func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func be(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    @Test func pngHasTheSignatureAndThePlotsSize() throws {
        // install-deps.sh installs rsvg-convert; without it this test fails rather than skips.
        #expect(PNGRenderer.locate() != nil, "rsvg-convert missing: bash scripts/install-deps.sh (librsvg2-bin)")
        let data = PlotData.replay(recording: PlotFixtures.recording(Fixtures.mapTour()), name: "tour")
        let path = temporaryPath("tour.png")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        try PNGRenderer.write(svg: SVGPlot.render(data), to: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes.prefix(8)) == PNGRenderer.signature)
        let size = try #require(pngSize(bytes))
        let expected = SVGPlot.size(of: data)
        #expect(size == (expected.width, expected.height))
        // The temporary SVG beside the output is gone.
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: (path as NSString).deletingLastPathComponent)
        #expect(!leftovers.contains { $0.hasSuffix(".svg") })
    }

    @Test func missingConverterSaysWhatToInstall() {
        let path = temporaryPath("never.png")
        #expect(PNGRenderer.locate(searchPath: "/nonexistent") == nil)
        do {
            try PNGRenderer.write(svg: Array("<svg/>".utf8), to: path, searchPath: "/nonexistent")
            Issue.record("expected a failure")
        } catch {
            #expect("\(error)".contains("librsvg2-bin"))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func converterFailureIsReported() {
        let path = temporaryPath("broken.png")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        do {
            try PNGRenderer.write(svg: Array("this is not svg".utf8), to: path)
            Issue.record("expected a failure")
        } catch {
            #expect("\(error)".contains("rsvg-convert failed"), "\(error)")
        }
    }
}
