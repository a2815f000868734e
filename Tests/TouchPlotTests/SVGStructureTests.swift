import Foundation
import Gestures
import MultitouchCore
import MultitouchTestKit
import Recordings
import Testing
import TouchPipeline

@testable import TouchPlot

/// Golden structure of the plot: the SVG parsed back, its elements counted and measured against what
/// the pipeline produced for the same recording (`Tally`). Not pixels.
@Suite struct SVGStructureTests {
    /// The outline rectangle in px: (x0, y0, x1, y1).
    private func outline(_ doc: SVGDocument) throws -> (Double, Double, Double, Double) {
        let rect = try #require(doc.all("rect", "outline").first)
        let x = try #require(rect.number("x"))
        let y = try #require(rect.number("y"))
        let w = try #require(rect.number("width"))
        let h = try #require(rect.number("height"))
        return (x, y, x + w, y + h)
    }

    /// Every check that holds for any recording whose touches stay on the device.
    private func checkCommonStructure(_ recording: Recording, _ tally: Tally) throws -> SVGDocument {
        let data = PlotData.replay(recording: recording, name: "test")
        let bytes = SVGPlot.render(data)
        let doc = try SVGDocument(bytes)
        let root = try #require(doc.elements.first)
        #expect(root.name == "svg")
        let size = SVGPlot.size(of: data)
        #expect(root.number("width") == Double(size.width))
        #expect(root.number("height") == Double(size.height))
        #expect(root.number("data-touches") == Double(tally.ids.count))
        #expect(root.number("data-segments") == Double(tally.segments.count))

        // One group per touch, in landing order, with one landing dot, its id, and a lift mark.
        let touchIndices = doc.index { $0.name == "g" && $0.has("touch") }
        #expect(touchIndices.map { doc.elements[$0].number("data-id") } == tally.ids.map { Double($0) })
        for index in touchIndices {
            let group = doc.elements[index]
            let id = try #require(group.number("data-id").map { UInt64($0) })
            let children = doc.children(of: index)
            #expect(children.filter { $0.name == "circle" && $0.has("land") }.count == 1, "touch \(id): landing")
            #expect(children.filter { $0.has("touch-id") }.map(\.text) == ["\(id)"], "touch \(id): label")
            let lifts = children.filter { $0.name == "path" && $0.has("lift") }
            let end = try #require(tally.ends[id], "touch \(id) never ended in the pipeline")
            #expect(lifts.count == 1 && lifts[0].has(end.rawValue), "touch \(id): lift mark for \(end)")
            #expect(group.attributes["data-end"] == end.rawValue)
            #expect(group.attributes["stroke"]?.count == 7, "touch \(id): a #rrggbb colour")
        }
        // Distinct colours for the first ten touches.
        let colours = touchIndices.prefix(10).compactMap { doc.elements[$0].attributes["stroke"] }
        #expect(Set(colours).count == colours.count)

        // Every trail point, landing and lift inside the device outline.
        let (x0, y0, x1, y1) = try outline(doc)
        let trails = doc.all("polyline", "trail").filter { $0.inside("touch") }
        var pointCount = 0
        for trail in trails {
            #expect(trail.has("pan") || trail.has("pinchRotate") || trail.has("idle"))
            for p in trail.points {
                pointCount += 1
                #expect(
                    p.x >= x0 - 0.05 && p.x <= x1 + 0.05 && p.y >= y0 - 0.05 && p.y <= y1 + 0.05,
                    "(\(p.x), \(p.y)) outside")
            }
        }
        for dot in doc.all("circle", "land") {
            let cx = try #require(dot.number("cx"))
            let cy = try #require(dot.number("cy"))
            #expect(cx >= x0 - 0.05 && cx <= x1 + 0.05 && cy >= y0 - 0.05 && cy <= y1 + 0.05)
        }

        // Discrete gestures as symbols, one each.
        #expect(doc.all("g", "mark", "tap").count == tally.taps)
        #expect(doc.all("g", "mark", "double-tap").count == tally.doubleTaps)
        #expect(doc.all("g", "mark", "long-press").count == tally.longPresses)
        #expect(doc.all("g", "timeline-mark").count == tally.taps + tally.doubleTaps + tally.longPresses)

        // The segment band: one rect per segment, in order, with its mode and finger count.
        let band = doc.all("rect", "mode")
        #expect(band.count == tally.segments.count)
        for (rect, segment) in zip(band, tally.segments) {
            #expect(rect.has(segment.mode.rawValue))
            #expect(rect.number("data-fingers") == Double(segment.fingers))
        }
        #expect(doc.all("line", "segment-change").count == tally.segments.count)

        // The timeline: four panels; every series inside its panel's frame, spanning the time axis.
        let panels = doc.index { $0.name == "g" && $0.has("panel") }
        #expect(
            panels.map { doc.elements[$0].attributes["data-quantity"] } == [
                "scale", "rotation", "translation", "fingers",
            ])
        for index in panels {
            let children = doc.children(of: index)
            let frame = try #require(children.first { $0.has("panel-frame") })
            let fx = try #require(frame.number("x"))
            let fy = try #require(frame.number("y"))
            let fw = try #require(frame.number("width"))
            let fh = try #require(frame.number("height"))
            let series = children.filter { $0.name == "polyline" && $0.has("series") }
            #expect(!series.isEmpty)
            for line in series {
                let points = line.points
                #expect(points.first?.x == fx, "series starts at the first frame")
                #expect(points.last?.x == fx + fw, "series runs to the last frame")
                for p in points {
                    #expect(p.y >= fy - 0.05 && p.y <= fy + fh + 0.05, "\(line.classes): y \(p.y) outside the panel")
                }
            }
        }
        let scalePanel = doc.elements[panels[0]]
        let low = try #require(scalePanel.number("data-min"))
        let high = try #require(scalePanel.number("data-max"))
        for scale in tally.scales { #expect(scale >= low && scale <= high) }
        let fingerPanel = doc.elements[panels[3]]
        #expect(fingerPanel.number("data-min") == 0)
        #expect(fingerPanel.number("data-max") == Double(max(tally.maximumFingers, 1)))
        #expect(pointCount > 0 || tally.ids.isEmpty)
        return doc
    }

    @Test func mapTourShowsEveryTouchSegmentAndGesture() throws {
        let recording = PlotFixtures.recording(Fixtures.mapTour())
        let tally = Tally.of(recording)
        // The fixture's script, so the tally itself is what the tour should be.
        #expect(tally.segments.map(\.mode) == [.pan, .pinchRotate, .pan, .pinchRotate])
        #expect(tally.doubleTaps == 1 && tally.longPresses == 1 && tally.taps >= 1)
        let doc = try checkCommonStructure(recording, tally)
        // Trails change dash with the mode, and a ring marks each touch joining a segment in a frame:
        // every such segment of the tour begins with as many touches as it has fingers (a segment that
        // begins when a debounce ends, between frames, has no touch point there to mark).
        #expect(!doc.all("polyline", "trail", "pan").isEmpty)
        #expect(!doc.all("polyline", "trail", "pinchRotate").isEmpty)
        #expect(
            doc.all("circle", "boundary").filter { $0.inside("touch") }.count == tally.fingersOfSegmentsBegunInFrames)
        #expect(tally.fingersOfSegmentsBegunInFrames > 0)
        // The zoom shows: the scale panel's range covers the 2x pinch-out.
        let scale = try #require(doc.all("g", "panel").first)
        #expect((scale.number("data-max") ?? 0) > 2)
    }

    @Test func tenFingerRecordingPlotsEveryTouch() throws {
        let recording = PlotFixtures.tenFingers()
        let tally = Tally.of(recording)
        #expect(tally.maximumFingers == 10)
        #expect(tally.ids.count > 100)
        let doc = try checkCommonStructure(recording, tally)
        // Palms turn into cancelled touches: drawn as such.
        let cancelled = tally.ends.values.filter { $0 == .cancelled }.count
        #expect(cancelled > 0)
        #expect(doc.all("path", "lift", "cancelled").filter { $0.inside("touch") }.count == cancelled)
    }

    @Test(arguments: Fixtures.all.map(\.name))
    func everyFixturePlotsToWellFormedSVG(name: String) throws {
        let fixture = try #require(Fixtures.all.first { $0.name == name })
        let recording = PlotFixtures.recording(fixture)
        _ = try checkCommonStructure(recording, Tally.of(recording))
    }

    @Test func sameInputSameBytes() throws {
        let first = PlotFixtures.svg(PlotFixtures.tenFingers())
        let second = PlotFixtures.svg(PlotFixtures.tenFingers())
        #expect(first == second)
        let tour = PlotFixtures.svg(PlotFixtures.recording(Fixtures.mapTour()))
        #expect(tour == PlotFixtures.svg(PlotFixtures.recording(Fixtures.mapTour())))
        #expect(tour != first)
    }

    @Test func emptyRecordingStillDrawsTheOutline() throws {
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: TestDevices.touchscreen(), events: [])])
        let data = PlotData.replay(recording: recording, name: "empty")
        let doc = try SVGDocument(SVGPlot.render(data))
        #expect(doc.all("rect", "outline").count == 1)
        #expect(doc.all("g", "touch").isEmpty)
        #expect(doc.all("g", "panel").count == 4)
    }

    @Test func hostileDeviceNameIsEscaped() throws {
        var device = TestDevices.touchscreen()
        device.name = "<evil & \"co\"> \u{1}\u{7f} ünïcödé"
        let fixture = Fixtures.mapTour()
        let recording = Recording(
            format: .evemu, devices: [RecordedDevice(description: device, events: fixture.events)])
        let doc = try SVGDocument(PlotFixtures.svg(recording, name: "a<b>&c.evemu"))
        #expect(doc.all("text", "title").first?.text == "a<b>&c.evemu")
        #expect(doc.elements.contains { $0.text.hasPrefix("<evil & \"co\"> ?") })
    }

    @Test func committedDocsPlotIsCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let name = "touchscreen-map-tour.evemu"
        let recording = try RecordingReader.read(path: root.appendingPathComponent("checks/fixtures/\(name)").path)
        let fresh = SVGPlot.render(PlotData.replay(recording: recording, name: name))
        let committed = try Data(contentsOf: root.appendingPathComponent("docs/plots/touchscreen-map-tour.svg"))
        let current = Array(committed) == fresh
        #expect(
            current,
            "run `multitouchctl plot checks/fixtures/\(name) -o docs/plots/touchscreen-map-tour.svg` and commit it")
        // The PNG beside it (its pixels depend on the installed renderer and fonts; its size must not).
        let png = try [UInt8](Data(contentsOf: root.appendingPathComponent("docs/plots/touchscreen-map-tour.png")))
        let size = SVGPlot.size(of: PlotData.replay(recording: recording, name: name))
        #expect(Array(png.prefix(8)) == PNGRenderer.signature)
        #expect(
            png.count >= 24 && Array(png[16..<24]) == bigEndian(size.width) + bigEndian(size.height),
            "regenerate the PNG too")
    }

    private func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }
}
