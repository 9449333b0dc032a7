import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl storage ...`
struct StorageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Inspect and wipe users' mini-app secure storage.",
        subcommands: [StorageUsageCommand.self, StorageWipeCommand.self]
    )
}

/// `gatewayctl storage usage --tenant T [--user U]`
struct StorageUsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage", abstract: "Bytes and items stored per user and mini app.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "Only this user (the token subject).") var user: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let user { try checkText(user, flag: "--user") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let report: StorageUsageReport
        if let remote = try await AdminRemote.select(global, context: context) {
            report = try await remote.storageUsage(tenantID: tenant.tenant, userID: user)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            report = StorageUsageReport(
                tenant: tenant.tenant, maxBytes: state.tenant.storageMaxSizeInBytes,
                usage: try await state.access.stores.storage.usage(tenantID: tenant.tenant, userID: user))
        }
        let (rows, max) = (report.usage, report.maxBytes)
        if global.json {
            try context.printJSON(report)
            return
        }
        var table = TextTable(header: ["USER", "MINIAPP", "ITEMS", "BYTES", "MAX", "LAST USED"])
        table.rows = rows.map {
            [
                $0.userID, $0.miniAppID, String($0.itemCount), String($0.usedBytes), String(max),
                TenantText.time($0.lastUsedAt),
            ]
        }
        table.lines.forEach(context.print)
    }
}

/// `gatewayctl storage wipe --tenant T --user U --miniapp M --yes`
struct StorageWipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe", abstract: "Delete every item a user stored for a mini app (requires --yes).")

    @OptionGroup var tenant: TenantOption
    @Option(help: "The user (token subject).") var user: String
    @Option(name: .customLong("miniapp"), help: "The mini app id.") var miniApp: String
    @Flag(help: "Confirm the wipe.") var yes = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try checkText(user, flag: "--user")
        try checkText(miniApp, flag: "--miniapp")
        guard yes else { throw ValidationError("refusing to wipe storage without --yes") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let deleted: Int
        if let remote = try await AdminRemote.select(global, context: context) {
            deleted = try await remote.wipeStorage(tenantID: tenant.tenant, userID: user, miniAppID: miniApp).deletedItems
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let owner = UserMiniAppKey(tenantID: tenant.tenant, userID: user, miniAppID: miniApp)
            let (actor, now) = (AuditActor.local(user: state.access.actor), Date())
            deleted = try await state.access.stores.storage.deleteAll(for: owner) { removed in
                StorageTrail.wipe(owner, removed: removed, actor: actor, requestID: nil, time: now)
            }
        }
        if global.json {
            try context.printJSON(StorageWipeReport(tenant: tenant.tenant, user: user, miniApp: miniApp, deletedItems: deleted))
        } else {
            context.print("wiped \(deleted) item(s) of user \(user) for mini app \(miniApp) in tenant \(tenant.tenant)")
        }
    }
}
