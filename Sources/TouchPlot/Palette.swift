/// Colours of the touches' trails: a fixed list for the first ten (Tableau 10, chosen to be told apart,
/// also by most colour-blind readers), then hues spaced by the golden angle so neighbours differ.
/// Pure integer arithmetic after one rounding: the same index gives the same `#rrggbb` everywhere.
enum Palette {
    private static let first: [String] = [
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
        "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f",
    ]

    static func color(_ index: Int) -> String {
        if index < first.count { return first[index] }
        let hue = (Double(index) * 137.508).truncatingRemainder(dividingBy: 360)
        return hex(hue: hue, saturation: 0.6, lightness: 0.45)
    }

    /// HSL to `#rrggbb` (CSS Color 4's formula).
    static func hex(hue: Double, saturation s: Double, lightness l: Double) -> String {
        func channel(_ n: Double) -> Int {
            let k = (n + hue / 30).truncatingRemainder(dividingBy: 12)
            let a = s * min(l, 1 - l)
            let v = l - a * max(-1, min(k - 3, 9 - k, 1))
            return Int((v * 255).rounded())
        }
        let digits = Array("0123456789abcdef")
        var out = "#"
        for value in [channel(0), channel(8), channel(4)] {
            let clamped = min(255, max(0, value))
            out.append(digits[clamped / 16])
            out.append(digits[clamped % 16])
        }
        return out
    }

    /// Fills of the segment bands on the timeline, by mode.
    static let pan = "#cfe0f1"
    static let pinchRotate = "#fbd9b5"
}
