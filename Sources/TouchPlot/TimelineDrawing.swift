import MultitouchCore
import TouchVocabulary

/// The timeline under the device panel, on one time axis (seconds from the first frame): a band of the
/// segments coloured by mode, then the cumulative scale, rotation (degrees) and translation (tx, ty) of
/// the published matrix and the finger count, each a step line (a value holds until the next update,
/// so a jump shows as a vertical edge and a freeze as a flat run), with a vertical line at every
/// segment change and the discrete gestures marked on the finger panel.
enum TimelineDrawing {
    /// One plotted quantity: its panel title, `data-quantity` name, value range and reference line.
    private struct Panel {
        var title: String
        var quantity: String
        var low: Double
        var high: Double
        var reference: Double?
        var digits: Int

        /// A range that holds `values`, at least `minimumSpan` wide, padded 5% each side.
        init(title: String, quantity: String, values: [Double], minimumSpan: Double, reference: Double?, digits: Int) {
            self.title = title
            self.quantity = quantity
            self.reference = reference
            self.digits = digits
            var lo = values.min() ?? 0
            var hi = values.max() ?? 0
            if hi - lo < minimumSpan {
                let centre = (lo + hi) / 2
                lo = centre - minimumSpan / 2
                hi = centre + minimumSpan / 2
            }
            let pad = (hi - lo) * 0.05
            low = lo - pad
            high = hi + pad
        }

        func y(_ value: Double, top: Double) -> Double {
            top + PlotLayout.panelHeight - (value - low) / (high - low) * PlotLayout.panelHeight
        }
    }

    static func draw(_ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter) {
        w.raw("<g class=\"timeline\">\n")
        band(data, layout, &w)
        let degrees = 180 / Double.pi
        let units = data.units.rawValue
        let maximumFingers = data.fingers.map(\.count).max() ?? 0
        var fingers = Panel(
            title: "fingers", quantity: "fingers", values: [0, Double(max(maximumFingers, 1))], minimumSpan: 1,
            reference: nil, digits: 0)
        // Whole fingers: the axis ends at 0 and the maximum exactly, no padding.
        fingers.low = 0
        fingers.high = Double(max(maximumFingers, 1))
        let panels = [
            Panel(
                title: "cumulative scale", quantity: "scale", values: data.transforms.map(\.scale), minimumSpan: 0.2,
                reference: 1, digits: 3),
            Panel(
                title: "cumulative rotation (degrees)", quantity: "rotation",
                values: data.transforms.map { $0.rotation * degrees }, minimumSpan: 20, reference: 0, digits: 1),
            Panel(
                title: "translation tx (solid), ty (dashed) (\(units))", quantity: "translation",
                values: data.transforms.flatMap { [$0.translation.x, $0.translation.y] }, minimumSpan: 20,
                reference: 0, digits: 1),
            fingers,
        ]
        for (index, panel) in panels.enumerated() {
            let top = layout.panelTop(index)
            frame(panel, top: top, &w)
            switch index {
            case 0: series(data.transforms.map { ($0.time, $0.scale) }, "scale", panel, top, data, layout, &w)
            case 1:
                series(
                    data.transforms.map { ($0.time, $0.rotation * degrees) }, "rotation", panel, top, data, layout, &w)
            case 2:
                series(data.transforms.map { ($0.time, $0.translation.x) }, "tx", panel, top, data, layout, &w)
                series(data.transforms.map { ($0.time, $0.translation.y) }, "ty", panel, top, data, layout, &w)
            default:
                series(data.fingers.map { ($0.time, Double($0.count)) }, "fingers", panel, top, data, layout, &w)
                marks(data, top: top, layout, &w)
            }
            w.raw("</g>\n")
        }
        segmentChanges(data, layout, &w)
        axis(layout, &w)
        w.raw("</g>\n")
    }

    private static func band(_ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter) {
        let top = layout.bandTop
        w.label("segments", x: PlotLayout.left - 6, y: top + 12, cls: "axis", anchor: "end")
        w.raw("<g class=\"segments\">\n")
        for segment in data.segments {
            let x0 = layout.timeX(segment.began)
            let x1 = max(layout.timeX(segment.ended ?? data.end), x0 + 0.5)
            let mode: String
            let short: String
            switch segment.mode {
            case .pan: (mode, short) = ("pan", "pan")
            case .pinchRotate: (mode, short) = ("pinchRotate", "pinch")
            // Coloured like what they do (zoom or translate), labelled with their own name.
            case .quickZoom: (mode, short) = ("pinchRotate", "qzoom")
            case .animatedZoom: (mode, short) = ("pinchRotate", "zoom")
            case .momentum: (mode, short) = ("pan", "fling")
            }
            w.raw("<rect class=\"mode \(mode)\"")
            w.attribute("x", x0)
            w.attribute("y", top)
            w.attribute("width", x1 - x0)
            w.attribute("height", PlotLayout.bandHeight)
            w.attribute("data-fingers", Double(segment.fingers), digits: 0)
            w.attribute("data-session", Double(segment.session), digits: 0)
            w.raw("/>\n")
            if x1 - x0 >= 44 {
                w.label("\(short) \(segment.fingers)f", x: x0 + 3, y: top + 11.5, cls: "mode-label")
            }
        }
        w.raw("</g>\n")
    }

    private static func frame(_ panel: Panel, top: Double, _ w: inout SVGWriter) {
        w.raw("<g class=\"panel\" data-quantity=\"\(panel.quantity)\"")
        w.attribute("data-min", panel.low, digits: 4)
        w.attribute("data-max", panel.high, digits: 4)
        w.raw(">\n")
        w.label(panel.title, x: PlotLayout.left, y: top - 5, cls: "panel-title")
        w.raw("<rect class=\"panel-frame\"")
        w.attribute("x", PlotLayout.left)
        w.attribute("y", top)
        w.attribute("width", PlotLayout.right - PlotLayout.left)
        w.attribute("height", PlotLayout.panelHeight)
        w.raw("/>\n")
        var high = SVGWriter(capacity: 16)
        high.number(panel.high, digits: panel.digits)
        var low = SVGWriter(capacity: 16)
        low.number(panel.low, digits: panel.digits)
        w.label(
            String(decoding: high.bytes, as: UTF8.self), x: PlotLayout.left - 6, y: top + 9, cls: "axis", anchor: "end")
        w.label(
            String(decoding: low.bytes, as: UTF8.self), x: PlotLayout.left - 6, y: top + PlotLayout.panelHeight,
            cls: "axis", anchor: "end")
        if let reference = panel.reference, reference > panel.low, reference < panel.high {
            let y = panel.y(reference, top: top)
            w.raw("<line class=\"reference\"")
            w.attribute("x1", PlotLayout.left)
            w.attribute("y1", y)
            w.attribute("x2", PlotLayout.right)
            w.attribute("y2", y)
            w.raw("/>\n")
            // Labelled unless it would sit on the minimum's or maximum's label.
            if y - top > 14, top + PlotLayout.panelHeight - y > 12 {
                var text = SVGWriter(capacity: 16)
                text.number(reference, digits: panel.digits)
                w.label(
                    String(decoding: text.bytes, as: UTF8.self), x: PlotLayout.left - 6, y: y + 3.5, cls: "axis",
                    anchor: "end")
            }
        }
    }

    /// A step line: each value holds from its time to the next one's, the last to the end.
    private static func series(
        _ values: [(Timestamp, Double)], _ name: String, _ panel: Panel, _ top: Double, _ data: PlotData,
        _ layout: PlotLayout, _ w: inout SVGWriter
    ) {
        guard !values.isEmpty else { return }
        var points: [(Double, Double)] = []
        points.reserveCapacity(values.count * 2 + 1)
        var previousY: Double?
        for (time, value) in values {
            let x = layout.timeX(time)
            let y = panel.y(value, top: top)
            if let previousY { points.append((x, previousY)) }
            points.append((x, y))
            previousY = y
        }
        if let previousY { points.append((layout.timeX(data.end), previousY)) }
        w.raw("<polyline class=\"series \(name)\"")
        w.attribute("data-samples", Double(values.count), digits: 0)
        w.points(points)
        w.raw("/>\n")
    }

    /// The discrete gestures along the top of the finger panel.
    private static func marks(_ data: PlotData, top: Double, _ layout: PlotLayout, _ w: inout SVGWriter) {
        for mark in data.marks {
            let cls: String
            switch mark.kind {
            case .tap: cls = "tap"
            case .doubleTap: cls = "double-tap"
            case .longPress(let phase, _):
                guard phase == .began else { continue }
                cls = "long-press"
            }
            w.raw("<g class=\"timeline-mark \(cls)\">")
            SVGPlot.symbol(mark.kind, x: layout.timeX(mark.time), y: top - 12 + 3, size: 0.45, &w)
            w.raw("</g>\n")
        }
    }

    private static func segmentChanges(_ data: PlotData, _ layout: PlotLayout, _ w: inout SVGWriter) {
        let top = layout.bandTop
        let bottom = layout.panelTop(PlotLayout.panelCount - 1) + PlotLayout.panelHeight
        w.raw("<g class=\"segment-changes\">\n")
        for segment in data.segments {
            let x = layout.timeX(segment.began)
            w.raw("<line class=\"segment-change\"")
            w.attribute("x1", x)
            w.attribute("y1", top)
            w.attribute("x2", x)
            w.attribute("y2", bottom)
            w.raw("/>\n")
        }
        w.raw("</g>\n")
    }

    /// Ticks at a 1-2-5 step giving at most ten intervals, labelled in seconds from the first frame.
    private static func axis(_ layout: PlotLayout, _ w: inout SVGWriter) {
        let y = layout.axisY
        let span = Double(layout.spanMicroseconds) / 1_000_000
        var step = 0.001
        var decade = 0.001
        search: while decade < 1e7 {
            for multiplier in [1.0, 2, 5] where span / (decade * multiplier) <= 10 {
                step = decade * multiplier
                break search
            }
            decade *= 10
        }
        w.raw("<g class=\"time-axis\">\n")
        var tick = 0
        while Double(tick) * step <= span + 1e-9 {
            let seconds = Double(tick) * step
            let x = PlotLayout.left + seconds / span * (PlotLayout.right - PlotLayout.left)
            w.raw("<line class=\"tick\"")
            w.attribute("x1", x)
            w.attribute("y1", y)
            w.attribute("x2", x)
            w.attribute("y2", y + 5)
            w.raw("/>")
            var text = SVGWriter(capacity: 16)
            text.number(seconds, digits: 3)
            w.label(String(decoding: text.bytes, as: UTF8.self), x: x, y: y + 17, cls: "axis", anchor: "middle")
            tick += 1
        }
        w.label("time (s)", x: PlotLayout.right, y: y + 34, cls: "axis", anchor: "end")
        w.raw("</g>\n")
    }
}
