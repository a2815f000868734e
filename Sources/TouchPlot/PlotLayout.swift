import MultitouchCore

/// Where everything goes on the page, in px: the device panel (published space scaled to fit, aspect
/// kept), the legend, and the timeline panels sharing one time axis. Computed once from the data.
struct PlotLayout {
    static let width = 1000.0
    static let left = 70.0
    static let right = 980.0
    static let deviceTop = 82.0
    static let deviceMaximumHeight = 520.0
    static let bandHeight = 16.0
    static let panelHeight = 80.0
    static let panelGap = 28.0
    static let panelCount = 4

    /// Published space -> px: x' = scale * x + offsetX, y' = scale * y + offsetY.
    let scale: Double
    let offsetX: Double
    let offsetY: Double
    let deviceBottom: Double
    let legendY: Double
    let bandTop: Double
    let axisY: Double
    let height: Int
    /// The time axis: `start` at `left`, `start + span` at `right`.
    let start: Timestamp
    let spanMicroseconds: Int64

    init(_ data: PlotData) {
        // Everything drawn on the device panel must fit: the outline, and any touch or mark outside it
        // (a calibrated touchscreen can report beyond the output's edge).
        var minX = 0.0
        var minY = 0.0
        var maxX = max(data.width, 0)
        var maxY = max(data.height, 0)
        func include(_ p: Point) {
            guard p.isFinite else { return }
            minX = min(minX, p.x)
            minY = min(minY, p.y)
            maxX = max(maxX, p.x)
            maxY = max(maxY, p.y)
        }
        for trail in data.trails { for point in trail.points { include(point.location) } }
        for mark in data.marks { include(mark.location) }
        let boundsWidth = max(maxX - minX, 1e-6)
        let boundsHeight = max(maxY - minY, 1e-6)
        let available = Self.right - Self.left
        scale = min(available / boundsWidth, Self.deviceMaximumHeight / boundsHeight)
        offsetX = Self.left + (available - boundsWidth * scale) / 2 - minX * scale
        offsetY = Self.deviceTop - minY * scale
        deviceBottom = Self.deviceTop + boundsHeight * scale
        legendY = deviceBottom + 40
        bandTop = legendY + 42
        axisY =
            bandTop + Self.bandHeight + 24 + Double(Self.panelCount) * (Self.panelHeight + Self.panelGap)
            - Self.panelGap
        height = Int((axisY + 44).rounded(.up))
        start = data.start
        // A recording of one instant still gets an axis (one second wide).
        let span = data.end.microseconds - data.start.microseconds
        spanMicroseconds = span > 0 ? span : 1_000_000
    }

    func device(_ p: Point) -> (Double, Double) {
        (scale * p.x + offsetX, scale * p.y + offsetY)
    }

    func timeX(_ t: Timestamp) -> Double {
        Self.left + Double(t.microseconds - start.microseconds) / Double(spanMicroseconds) * (Self.right - Self.left)
    }

    func panelTop(_ index: Int) -> Double {
        bandTop + Self.bandHeight + 24 + Double(index) * (Self.panelHeight + Self.panelGap)
    }
}
