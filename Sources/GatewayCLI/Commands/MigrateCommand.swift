import ArgumentParser
import GatewayCore

/// `gatewayctl migrate`: creates or upgrades the database schema.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the database schema (safe to run repeatedly)."
    )

    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var database: String
        var applied: [String]
        var newlyApplied: [String]
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try StoreAccess(global, context: context, migrate: false, create: true)
        let before = try access.store.appliedMigrations()
        try access.store.migrate()
        let after = try access.store.appliedMigrations()
        let new = after.filter { !before.contains($0) }
        if global.json {
            try context.printJSON(Report(database: access.store.path, applied: after, newlyApplied: new))
        } else if new.isEmpty {
            context.print("database \(access.store.path) is up to date (\(after.joined(separator: ", ")))")
        } else {
            context.print("applied \(new.joined(separator: ", ")) to \(access.store.path)")
        }
    }
}
