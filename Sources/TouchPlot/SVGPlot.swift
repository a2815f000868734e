import MultitouchCore
import TouchVocabulary

/// Draws a `PlotData` as one standalone SVG document: a header, the device outline in its published
/// space with every touch's trail (its own colour, its id at the landing, a cross at the lift, the
/// dash pattern of the segment mode, a ring at each segment boundary), the discrete gestures as
/// symbols, a legend, and the timeline (`TimelineDrawing`).
///
/// Deterministic: no clock, no locale, one number format (`SVGWriter`), everything in data order; the
/// same data gives the same bytes. Element classes and `data-*` attributes name what each element is,
/// for tests and for people reading the file.
public enum SVGPlot {
    /// Width and height in px of the plot of `data` (the PNG has the same size).
    public static func size(of data: PlotData) -> (width: Int, height: Int) {
        (Int(PlotLayout.width), PlotLayout(data).height)
    }

    public static func render(_ data: PlotData) -> [UInt8] {
        let layout = PlotLayout(data)
        let pointCount = data.trails.reduce(0) { $0 + $1.points.count }
        var w = SVGWriter(capacity: 16_384 + pointCount * 14 + data.transforms.count * 80)
        header(data, layout, &w)
        devicePanel(data, layout, &w)
        legend(layout, &w)
        TimelineDrawing.draw(data, layout, &w)
        w.raw("</svg>\n")
        return w.bytes
    }

    private static let style = """
        <style>
        text{stroke:none}
        .title{font-size:15px;font-weight:bold}
        .summary{font-size:12px;fill:#333}
        .outline{fill:#f7f7f7;stroke:#333;stroke-width:1.5}
        .extent{font-size:10px;fill:#555}
        .trail{fill:none;stroke-width:1.8;stroke-linejoin:round;stroke-linecap:round}
        .trail.pinchRotate{stroke-dasharray:7 3}
        .trail.idle{stroke-width:1;stroke-dasharray:1 3}
        .boundary{fill:#fff;stroke-width:1.4}
        .lift{fill:none;stroke-width:2}
        .lift.cancelled{stroke:#d00000}
        .touch-id{font-size:10px;font-weight:bold}
        .mark{fill:none;stroke:#111;stroke-width:1.6}
        .mark-count{font-size:9px;fill:#111}
        .legend{font-size:11px;fill:#333}
        .panel-frame{fill:#fff;stroke:#999}
        .panel-title{font-size:11px;font-weight:bold;fill:#333}
        .axis{font-size:10px;fill:#555}
        .tick{stroke:#999}
        .reference{stroke:#bbb;stroke-dasharray:3 3}
        .series{fill:none;stroke:#1f4e79;stroke-width:1.5}
        .series.ty{stroke:#b5540f;stroke-dasharray:5 2}
        .series.fingers{stroke:#222}
        .segment-change{stroke:#777;stroke-width:0.6;stroke-opacity:0.6}
        .mode.pan{fill:\(Palette.pan)}
        .mode.pinchRotate{fill:\(Palette.pinchRotate)}
        .mode-label{font-size:9px;fill:#333}
        .timeline-mark{fill:none;stroke:#111;stroke-width:1.2}
        </style>

        """

    private static func header(_ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter) {
        w.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"")
        w.attribute("width", PlotLayout.width, digits: 0)
        w.attribute("height", Double(layout.height), digits: 0)
        w.raw(" viewBox=\"0 0 ")
        w.number(PlotLayout.width, digits: 0)
        w.raw(" ")
        w.integer(layout.height)
        w.raw("\" font-family=\"DejaVu Sans, Verdana, sans-serif\"")
        w.attribute("data-frames", Double(data.frameCount), digits: 0)
        w.attribute("data-touches", Double(data.trails.count), digits: 0)
        w.attribute("data-segments", Double(data.segments.count), digits: 0)
        w.raw(">\n<title>")
        w.text("multitouchctl plot: \(data.title)")
        w.raw("</title>\n")
        w.raw(style)
        w.raw("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        let units = data.units.rawValue
        w.label(data.title, x: PlotLayout.left, y: 22, cls: "title")
        w.label(
            "\(data.deviceName) (\(data.deviceClass.rawValue), published in \(units))", x: PlotLayout.left, y: 40,
            cls: "summary")
        let pans = data.segments.filter { $0.mode == .pan }.count
        let duration = Double(data.end.microseconds - data.start.microseconds) / 1_000_000
        var taps = 0
        var doubleTaps = 0
        var longPresses = 0
        for mark in data.marks {
            switch mark.kind {
            case .tap: taps += 1
            case .doubleTap: doubleTaps += 1
            case .longPress(let phase, _): if phase == .began { longPresses += 1 }
            }
        }
        var summary = SVGWriter(capacity: 256)
        summary.integer(data.frameCount)
        summary.raw(" touch frames over ")
        summary.number(duration, digits: 2)
        summary.raw(
            " s · touches \(data.trails.count) · segments \(data.segments.count) (pan \(pans), "
                + "pinchRotate \(data.segments.count - pans)) · taps \(taps) · double taps \(doubleTaps) · "
                + "long presses \(longPresses)")
        w.label(String(decoding: summary.bytes, as: UTF8.self), x: PlotLayout.left, y: 57, cls: "summary")
    }

    private static func devicePanel(_ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter) {
        let (x0, y0) = layout.device(.zero)
        let (x1, y1) = layout.device(Point(x: data.width, y: data.height))
        w.raw("<rect class=\"outline\"")
        w.attribute("x", x0)
        w.attribute("y", y0)
        w.attribute("width", x1 - x0)
        w.attribute("height", y1 - y0)
        w.attribute("data-width", data.width, digits: 2)
        w.attribute("data-height", data.height, digits: 2)
        w.attribute("data-units", data.units.rawValue)
        w.raw("/>\n")
        w.label("(0, 0)", x: x0, y: y0 - 4, cls: "extent")
        var extent = SVGWriter(capacity: 64)
        extent.raw("(")
        extent.number(data.width)
        extent.raw(", ")
        extent.number(data.height)
        extent.raw(") \(data.units.rawValue)")
        w.label(String(decoding: extent.bytes, as: UTF8.self), x: x1, y: y1 + 13, cls: "extent", anchor: "end")

        w.raw("<g class=\"touches\">\n")
        for (index, trail) in data.trails.enumerated() {
            touch(trail, color: Palette.color(index), data, layout, &w)
        }
        w.raw("</g>\n<g class=\"gestures\">\n")
        for mark in data.marks { gestureMark(mark, data, layout, &w) }
        w.raw("</g>\n")
    }

    private static func modeClass(_ segment: Int?, _ data: PlotData) -> String {
        guard let segment else { return "idle" }
        switch data.segments[segment].mode {
        case .pan: return "pan"
        case .pinchRotate: return "pinchRotate"
        // Drawn in the style of what they do: a quick or animated zoom scales, momentum translates.
        case .quickZoom, .animatedZoom: return "pinchRotate"
        case .momentum: return "pan"
        }
    }

    private static func touch(
        _ trail: TouchTrail, color: String, _ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter
    ) {
        guard let first = trail.points.first, let last = trail.points.last else { return }
        w.raw("<g class=\"touch\"")
        w.attribute("data-id", Double(trail.id), digits: 0)
        w.attribute("data-points", Double(trail.points.count), digits: 0)
        w.attribute("data-end", trail.end?.rawValue ?? "none")
        w.raw(" stroke=\"\(color)\">\n")
        // One polyline per run of points in the same segment; each run after the first starts at the
        // previous run's last point so the trail stays connected.
        var runStart = 0
        for i in 1...trail.points.count {
            guard i == trail.points.count || trail.points[i].segment != trail.points[runStart].segment else { continue }
            let from = max(runStart - 1, 0)
            let run = trail.points[from..<i]
            if run.count >= 2 {
                w.raw("<polyline class=\"trail \(modeClass(trail.points[runStart].segment, data))\"")
                w.points(run.lazy.map { layout.device($0.location) })
                w.raw("/>\n")
            }
            runStart = i
        }
        // Segment boundaries: where the touch joined a segment other than the one before.
        for i in trail.points.indices {
            let point = trail.points[i]
            guard let segment = point.segment, i == 0 || trail.points[i - 1].segment != segment,
                data.segments[segment].began == point.time
            else { continue }
            let (x, y) = layout.device(point.location)
            w.raw("<circle class=\"boundary\"")
            w.attribute("cx", x)
            w.attribute("cy", y)
            w.raw(" r=\"3\"/>\n")
        }
        let (lx, ly) = layout.device(first.location)
        w.raw("<circle class=\"land\"")
        w.attribute("cx", lx)
        w.attribute("cy", ly)
        w.raw(" r=\"4\" fill=\"\(color)\"/>\n<text class=\"touch-id\"")
        w.attribute("x", lx + 6)
        w.attribute("y", ly - 6)
        w.raw(" style=\"fill:\(color)\">")
        w.integer(Int(clamping: trail.id))
        w.raw("</text>\n")
        if let end = trail.end {
            let (ex, ey) = layout.device(last.location)
            cross(x: ex, y: ey, cls: "lift \(end.rawValue)", &w)
        }
        w.raw("</g>\n")
    }

    private static func gestureMark(_ mark: GestureMark, _ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter) {
        let (x, y) = layout.device(mark.location)
        let seconds = Double(mark.time.microseconds - data.start.microseconds) / 1_000_000
        var title = SVGWriter(capacity: 64)
        switch mark.kind {
        case .tap(let count, let fingers):
            w.raw("<g class=\"mark tap\"")
            w.attribute("data-count", Double(count), digits: 0)
            w.attribute("data-fingers", Double(fingers), digits: 0)
            title.raw("tap, count \(count), \(fingers) finger(s), at ")
        case .doubleTap:
            w.raw("<g class=\"mark double-tap\"")
            title.raw("double tap at ")
        case .longPress(let phase, let fingers):
            // Only the press itself gets a symbol (its end is where the finger lifts).
            guard phase == .began else { return }
            w.raw("<g class=\"mark long-press\"")
            w.attribute("data-fingers", Double(fingers), digits: 0)
            title.raw("long press, \(fingers) finger(s), at ")
        }
        title.number(seconds, digits: 3)
        title.raw(" s")
        w.attribute("data-time", seconds, digits: 3)
        w.raw("><title>")
        w.text(String(decoding: title.bytes, as: UTF8.self))
        w.raw("</title>")
        symbol(mark.kind, x: x, y: y, size: 1, &w)
        if case .tap(let count, _) = mark.kind, count > 1 {
            w.raw("<text class=\"mark-count\"")
            w.attribute("x", x + 9)
            w.attribute("y", y + 12)
            w.raw(">×")
            w.integer(count)
            w.raw("</text>")
        }
        w.raw("</g>\n")
    }

    /// The symbol of a discrete gesture centred on (x, y): a ring (tap), two rings (double tap), a
    /// square (long press). `size` scales it (the legend and the timeline use smaller ones).
    static func symbol(_ kind: GestureMark.Kind, x: Double, y: Double, size: Double, _ w: inout SVGWriter) {
        switch kind {
        case .tap:
            ring(x, y, 7 * size, &w)
        case .doubleTap:
            ring(x, y, 6 * size, &w)
            ring(x, y, 10 * size, &w)
        case .longPress:
            w.raw("<rect")
            w.attribute("x", x - 7 * size)
            w.attribute("y", y - 7 * size)
            w.attribute("width", 14 * size)
            w.attribute("height", 14 * size)
            w.raw("/>")
        }
    }

    /// An 8 px cross centred on (x, y): where a touch lifted.
    private static func cross(x: Double, y: Double, cls: String, _ w: inout SVGWriter) {
        w.raw("<path class=\"\(cls)\" d=\"M")
        w.number(x - 4)
        w.raw(" ")
        w.number(y - 4)
        w.raw("l8 8m-8 0l8 -8\"/>\n")
    }

    private static func ring(_ x: Double, _ y: Double, _ r: Double, _ w: inout SVGWriter) {
        w.raw("<circle")
        w.attribute("cx", x)
        w.attribute("cy", y)
        w.attribute("r", r)
        w.raw("/>")
    }

    private static func legend(_ layout: PlotLayout, _ w: inout SVGWriter) {
        let y = layout.legendY
        var x = PlotLayout.left
        w.raw("<g class=\"legend-items\" stroke=\"#555\">\n")
        // Trails by mode.
        for (cls, name) in [("pan", "pan"), ("pinchRotate", "pinchRotate"), ("idle", "no segment")] {
            w.raw("<polyline class=\"trail \(cls)\"")
            w.points([(x, y), (x + 26, y)])
            w.raw("/>")
            w.label(name, x: x + 31, y: y + 4, cls: "legend")
            x += 40 + Double(name.count) * 6.5
        }
        w.raw("<circle")
        w.attribute("cx", x + 4)
        w.attribute("cy", y)
        w.raw(" r=\"4\" fill=\"#555\"/>")
        w.label("landing, id", x: x + 12, y: y + 4, cls: "legend")
        x += 85
        cross(x: x + 4, y: y, cls: "lift", &w)
        w.label("lift", x: x + 13, y: y + 4, cls: "legend")
        x += 40
        cross(x: x + 4, y: y, cls: "lift cancelled", &w)
        w.label("cancelled", x: x + 13, y: y + 4, cls: "legend")
        x += 78
        w.raw("<circle class=\"boundary\"")
        w.attribute("cx", x + 3)
        w.attribute("cy", y)
        w.raw(" r=\"3\"/>")
        w.label("segment begins", x: x + 11, y: y + 4, cls: "legend")
        x += 112
        w.raw("</g>\n<g class=\"legend-marks\" fill=\"none\" stroke=\"#111\" stroke-width=\"1.6\">\n")
        for (kind, name) in [
            (GestureMark.Kind.tap(count: 1, fingers: 1), "tap"), (.doubleTap, "double tap"),
            (.longPress(.began, fingers: 1), "long press"),
        ] {
            symbol(kind, x: x + 8, y: y, size: 0.7, &w)
            w.label(name, x: x + 18, y: y + 4, cls: "legend")
            x += 30 + Double(name.count) * 6.5
        }
        w.raw("\n</g>\n")
    }
}
