import Foundation
import GatewayCore

/// Charts the gateway draws itself as inline SVG (issue 49): no chart library, readable
/// without script, and testable as text. Each chart is `role="img"` with a `<title>` that
/// says in words what it shows.
enum ConsoleChart {
    static let width = 640.0
    static let height = 240.0
    static let margin = (left: 48.0, right: 12.0, top: 12.0, bottom: 28.0)

    /// The candidate's and stable's failure rates per window, the halt threshold of the last
    /// window stable had opens in (the rule's ratio times stable's rate) as a dashed line across,
    /// and the opens of each window as faint bars.
    static func releaseHealth(
        _ points: [ReleaseHealthSeries.Point], candidate: String, rule: AutoHaltRule?, texts: ConsoleTexts
    ) -> String {
        let title = summary(points, candidate: candidate, rule: rule, texts: texts)
        let threshold = points.last { $0.stable.opens > 0 }.flatMap { point in
            rule.map { $0.errorRatio * max(point.stable.failures, 1) / point.stable.opens }
        }
        let rates = points.flatMap { [$0.candidate.rate, $0.stable.rate] } + [threshold].compactMap { $0 }
        // Headroom above the highest rate, but not past 100 % (no rate exceeds it) unless the
        // halt line is drawn above it.
        let top = max(0.05, min(max(1, threshold ?? 0), (rates.max() ?? 0) * 1.15))
        let opens = max(1, points.map { max($0.candidate.opens, $0.stable.opens) }.max() ?? 1)
        let plotWidth = width - margin.left - margin.right
        let plotHeight = height - margin.top - margin.bottom
        let step = points.count > 1 ? plotWidth / Double(points.count - 1) : 0
        let x = { (index: Int) in margin.left + Double(index) * step }
        let y = { (rate: Double) in margin.top + plotHeight * (1 - min(rate, top) / top) }
        let line = { (values: [Double?], css: String) -> String in
            let coordinates = values.enumerated().compactMap { index, value in
                value.map { String(format: "%.1f,%.1f", x(index), y($0)) }
            }
            return coordinates.count < 2
                ? "" : "<polyline class=\"\(css)\" fill=\"none\" points=\"\(coordinates.joined(separator: " "))\"/>"
        }
        var svg = """
            <svg role="img" aria-labelledby="chart-title" viewBox="0 0 \(Int(width)) \(Int(height))" \
            xmlns="http://www.w3.org/2000/svg" class="chart"><title id="chart-title">\(ConsolePage.escape(title))</title>
            """
        // Gridlines and the rate axis: 0, half, top.
        for fraction in [0.0, 0.5, 1.0] {
            let rate = top * fraction
            svg += String(
                format: "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", margin.left,
                width - margin.right, y(rate), y(rate))
            svg += String(format: "<text class=\"axis\" x=\"4\" y=\"%.1f\">", y(rate) + 4) + percent(rate) + "</text>"
        }
        // Opens per window, as bars behind the lines.
        let bar = max(2, step * 0.3)
        for (index, point) in points.enumerated() {
            let height = plotHeight * (point.candidate.opens + point.stable.opens) / (2 * opens)
            svg += String(
                format: "<rect class=\"opens\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
                x(index) - bar / 2, margin.top + plotHeight - height, bar, height)
        }
        if let threshold {
            svg += String(
                format: "<line class=\"threshold\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", margin.left,
                width - margin.right, y(threshold), y(threshold))
        }
        svg +=
            line(points.map { $0.stable.rate }, "stable")
            + line(points.map { $0.candidate.rate }, "candidate")
        // Time labels: the first, the middle and the last window, in the operator's time zone
        // (as the history beside the chart); the last one ends at its point, so it is not cut.
        for index in Set([0, points.count / 2, points.count - 1]).sorted() where points.indices.contains(index) {
            let anchor = index == points.count - 1 && index > 0 ? "end" : index == 0 ? "start" : "middle"
            svg +=
                String(
                    format: "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%@\">", x(index), height - 8,
                    anchor)
                + texts.clock(points[index].start) + "</text>"
        }
        return svg + "</svg>"
    }

    /// The chart in words, from the last window with opens: "1.1 failed on 4.1 % of 120 opens,
    /// stable on 1.2 % of 300; halt above 2× stable".
    static func summary(
        _ points: [ReleaseHealthSeries.Point], candidate: String, rule: AutoHaltRule?, texts: ConsoleTexts
    ) -> String {
        let halt = rule.map { texts.format(.chartHalt, String(format: "%g", $0.errorRatio)) } ?? texts[.chartNoHalt]
        guard let last = points.last(where: { $0.candidate.opens + $0.stable.opens > 0 }) else {
            return texts.format(.chartEmpty, candidate) + " " + halt
        }
        return texts.format(
            .chartSummary, candidate, percent(last.candidate.rate), String(Int(last.candidate.opens)),
            percent(last.stable.rate), String(Int(last.stable.opens))) + " " + halt
    }

    /// A notification's funnel as horizontal bars, each as long as its share of the queued
    /// deliveries: queued, accepted by the provider, still pending, failed, invalid tokens
    /// (removed), expired, skipped for want of consent.
    static func funnel(_ counts: DeliveryCounts, texts: ConsoleTexts, id: String = "funnel") -> String {
        let rows: [(ConsoleTexts.Key, Int, String)] = [
            (.queued, counts.total, "queued"), (.funnelSent, counts.sent, "sent"),
            (.funnelPending, counts.pending, "pending"),
            (.funnelFailed, counts.failed, "failed"), (.funnelInvalid, counts.invalidToken, "failed"),
            (.funnelExpired, counts.expired, "failed"), (.funnelSkipped, counts.skippedNoConsent, "skipped"),
        ]
        let total = max(1, counts.total)
        let label = 200.0
        let bar = width - label - 60
        let rowHeight = 28.0
        let title = texts.format(
            .funnelSummary, String(counts.total), String(counts.sent),
            percent(Double(counts.sent) / Double(total)), String(counts.failed + counts.expired),
            String(counts.invalidToken), String(counts.pending), String(counts.skippedNoConsent))
        var svg = """
            <svg role="img" aria-labelledby="\(id)-title" viewBox="0 0 \(Int(width)) \(Int(rowHeight * Double(rows.count) + 8))" \
            xmlns="http://www.w3.org/2000/svg" class="chart funnel"><title id="\(id)-title">\(ConsolePage.escape(title))</title>
            """
        for (index, row) in rows.enumerated() {
            let y = 4 + Double(index) * rowHeight
            let length = bar * Double(row.1) / Double(total)
            svg +=
                String(format: "<text class=\"axis\" x=\"4\" y=\"%.1f\">", y + 18) + ConsolePage.escape(texts[row.0])
                + "</text>"
            svg += String(
                format: "<rect class=\"%@\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"20\"/>", row.2, label, y + 4,
                length)
            svg += String(
                format: "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">%d</text>", label + length + 6, y + 18, row.1)
        }
        return svg + "</svg>"
    }

    static func percent(_ rate: Double) -> String { String(format: "%.1f %%", rate * 100) }
}
