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
        let access = try await StoreAccess.open(global, context: context, migrate: false, create: true)
        let schema = access.stores.schema
        let before = try await schema.applied()
        try await schema.migrate()
        let after = try await schema.applied()
        let new = after.filter { !before.contains($0) }
        let location = access.stores.location
        if global.json {
            try context.printJSON(Report(database: location, applied: after, newlyApplied: new))
        } else if new.isEmpty {
            context.print("database \(location) is up to date (\(after.joined(separator: ", ")))")
        } else {
            context.print("applied \(new.joined(separator: ", ")) to \(location)")
        }
    }
}
