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
        /// Contact rows from before `v23-sealed-contacts` sealed now.
        var sealedContacts: Int
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await StoreAccess.open(global, context: context, migrate: false, create: true, bootstrap: true)
        let schema = access.stores.schema
        let before = try await schema.applied()
        try await schema.migrate()
        let after = try await schema.applied()
        let new = after.filter { !before.contains($0) }
        let location = access.stores.location
        // Rows stored before contacts were sealed, sealed now in batches (progress on stderr).
        var sealed = 0
        while true {
            let batch = try await access.stores.messaging.sealLegacyContacts(limit: 1_000)
            sealed += batch
            if batch < 1_000 { break }
            context.printError("sealing contacts stored before v23-sealed-contacts: \(sealed) so far")
        }
        if global.json {
            try context.printJSON(Report(database: location, applied: after, newlyApplied: new, sealedContacts: sealed))
            return
        }
        if new.isEmpty {
            context.print("database \(location) is up to date (\(after.joined(separator: ", ")))")
        } else {
            context.print("applied \(new.joined(separator: ", ")) to \(location)")
        }
        if sealed > 0 { context.print("sealed \(sealed) contact row(s) stored before contacts were sealed") }
    }
}
