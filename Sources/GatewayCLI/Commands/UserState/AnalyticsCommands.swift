import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl analytics ...`
struct AnalyticsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Report stored analytics events.",
        subcommands: [AnalyticsSummaryCommand.self]
    )
}

/// `gatewayctl analytics summary --tenant T --since 24h`
struct AnalyticsSummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary", abstract: "Event counts per mini app and type since a time.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "How far back: 30m, 24h, 7d, or an ISO 8601 time.") var since = "24h"
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard SinceParser.parse(since, now: Date()) != nil else {
            throw ValidationError(
                "--since must be like 30m, 24h, 7d (up to 3650 days) or an ISO 8601 time, got \"\(since.prefix(40))\"")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        // Whole milliseconds: the time the API carries, so both paths print the same.
        let start = StoreClock.date(StoreClock.milliseconds(SinceParser.parse(since, now: Date()) ?? Date()))
        let report: AnalyticsSummaryReport
        if let remote = try await AdminRemote.select(global, context: context) {
            report = try await remote.analyticsSummary(tenantID: tenant.tenant, since: start)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            report = AnalyticsSummaryReport(
                tenant: tenant.tenant, since: start,
                counts: try await state.access.stores.analytics.summary(tenantID: tenant.tenant, since: start))
        }
        let (counts, total) = (report.counts, report.total)
        if global.json {
            try context.printJSON(report)
            return
        }
        var table = TextTable(header: ["MINIAPP", "KIND", "TYPE", "COUNT"])
        table.rows = counts.map { [$0.miniAppID, $0.kind.rawValue, $0.type, String($0.count)] }
        table.lines.forEach(context.print)
        context.print("total \(total) event(s) since \(TenantText.time(start))")
    }
}

/// `--since` values: `<n>s|m|h|d` back from now, or an ISO 8601 time.
enum SinceParser {
    static func parse(_ text: String, now: Date) -> Date? {
        let limit = 3650 * 86_400
        if let unit = text.last, let amount = Int(text.dropLast()), (0 ... limit).contains(amount) {
            let seconds: Int? = switch unit {
            case "s": amount
            case "m": amount * 60
            case "h": amount * 3600
            case "d": amount * 86_400
            default: nil
            }
            if let seconds, seconds <= limit { return now.addingTimeInterval(-Double(seconds)) }
            return nil
        }
        return RFC3339.date(from: text)
    }
}
