import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl release show --tenant T MINIAPP`
struct ReleaseShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a mini app's release policy.")
    @OptionGroup var target: ReleaseTargetOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let view: ReleasePolicyView
        if let remote = try await AdminRemote.select(global, context: context) {
            view = try await remote.releasePolicy(tenantID: target.tenant.tenant, miniAppID: target.miniApp)
        } else {
            let access = try await ReleaseAccess(target, global: global, context: context)
            guard let policy = try await access.store.policy(tenantID: target.tenant.tenant, miniAppID: target.miniApp)
            else { throw CLIError.invalid(ReleasePolicyError.noPolicy(miniAppID: target.miniApp).description) }
            view = ReleasePolicyView(policy)
        }
        if global.json { return try context.printJSON(view) }
        var lines = [
            "mini app:   \(view.miniAppId) (tenant \(view.tenant), revision \(view.revision))",
            "stable:     \(view.stable ?? "platform latest")",
        ]
        if let candidate = view.candidate {
            lines.append("candidate:  \(candidate.version), \(candidate.state), \(candidate.shareNow)% now (set \(candidate.percent)%)")
            for step in candidate.steps {
                lines.append("  step:     \(step.percent)% at \(ISO8601DateFormatter().string(from: step.at))")
            }
            lines.append("  allow:    \(candidate.allowUsers.count) users; deny: \(candidate.denyUsers.count) users")
            lines.append(
                "  segment:  host \(candidate.hostVersions ?? "any"), platform "
                    + (candidate.platforms.isEmpty ? "any" : candidate.platforms.joined(separator: ",")) + ", locale "
                    + (candidate.locales.isEmpty ? "any" : candidate.locales.joined(separator: ",")))
        } else {
            lines.append("candidate:  none")
        }
        for entry in view.withdrawn {
            lines.append("withdrawn:  \(entry.version) (instead: \(entry.useInstead ?? "platform latest"))")
        }
        if let rule = view.autoHalt {
            lines.append(
                "auto halt:  error rate above \(rule.errorRatio)x stable's, from \(rule.minOpens) opens "
                    + "and \(rule.minUsers) users a side")
        }
        lines.forEach(context.print)
    }
}

/// `gatewayctl release list --tenant T`
struct ReleaseListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a tenant's release policies.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
        let views = try await state.access.stores.releases.policies(tenantID: tenant.tenant).map { ReleasePolicyView($0) }
        if global.json { return try context.printJSON(views) }
        if views.isEmpty { return context.print("tenant \(tenant.tenant) has no release policies") }
        var table = TextTable(header: ["MINIAPP", "STABLE", "CANDIDATE", "SHARE", "STATE", "WITHDRAWN", "REVISION"])
        for view in views {
            table.rows.append([
                view.miniAppId, view.stable ?? "latest", view.candidate?.version ?? "-",
                view.candidate.map { "\($0.shareNow)%" } ?? "-", view.candidate?.state ?? "-",
                view.withdrawn.isEmpty ? "-" : view.withdrawn.map(\.version).joined(separator: ","), String(view.revision),
            ])
        }
        table.lines.forEach(context.print)
    }
}

/// `gatewayctl release history --tenant T MINIAPP [--limit N]`
struct ReleaseHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Every change to a mini app's release policy, newest first.")
    @OptionGroup var target: ReleaseTargetOptions
    @Option(help: "At most this many entries (1-1000).") var limit = 50
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if !(1...1_000).contains(limit) { throw ValidationError("--limit must be 1-1000") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let entries: [ReleaseHistoryEntry]
        if let remote = try await AdminRemote.select(global, context: context) {
            entries = try await remote.releaseHistory(tenantID: target.tenant.tenant, miniAppID: target.miniApp, limit: limit)
        } else {
            let access = try await ReleaseAccess(target, global: global, context: context)
            entries = try await access.store.history(tenantID: target.tenant.tenant, miniAppID: target.miniApp, limit: limit)
        }
        if global.json { return try context.printJSON(entries) }
        if entries.isEmpty { return context.print("no release history for \(target.miniApp)") }
        var table = TextTable(header: ["AT", "ACTOR", "ACTION", "POLICY", "REASON"])
        for entry in entries {
            table.rows.append([
                ISO8601DateFormatter().string(from: entry.at), entry.actor, entry.action.rawValue, entry.summary,
                entry.reason ?? "-",
            ])
        }
        table.lines.forEach(context.print)
    }
}
