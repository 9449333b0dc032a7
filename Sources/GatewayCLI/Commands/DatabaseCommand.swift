import ArgumentParser
import Foundation
import GatewayCore
import GatewaySQLite
import GatewayPostgres
import Logging

/// `gatewayctl db ...`
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Move an installation between database engines.",
        subcommands: [DatabaseCopyCommand.self]
    )
}

/// `gatewayctl db copy --from PATH --to URL`: SQLite file → PostgreSQL, all or nothing.
struct DatabaseCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy every table of a SQLite database into PostgreSQL, in one transaction.",
        discussion: """
            Secrets are copied sealed: start the PostgreSQL gateway with the same master key \
            (checked here: the copy refuses a key that does not open the source's secrets). \
            The target is migrated first; it must be empty unless --force (which replaces \
            everything in it). Prints a row count per table.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        help: ArgumentHelp(
            "The SQLite database file to copy (default: --db / $GATEWAY_DATABASE_PATH).", valueName: "path"))
    var from: String?

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL URL to copy into (default: --database-url / $GATEWAY_DATABASE_URL).", valueName: "url"))
    var to: String?

    @Flag(help: "Replace whatever the target already holds.")
    var force = false

    private struct Report: Encodable {
        var from: String
        var to: String
        var tables: [String: Int]
    }

    func run() async throws {
        let context = try CLIContext.require()
        let path = from ?? global.resolvedDatabasePath(context.environment)
        guard let url = to ?? global.resolvedDatabaseURL(context.environment) else {
            throw CLIError.invalid("--to: give the PostgreSQL URL to copy into (or set GATEWAY_DATABASE_URL)")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError.invalid("--from: no database at \(path)")
        }
        let source = try await StoreAccess.open(global, context: context, sqliteFile: path, bootstrap: true)
        // The key must open the source's secrets, or the copy would be unreadable there too.
        do {
            _ = try await source.store.allTenants()
        } catch let error as SecretSealerError {
            throw CLIError.failure(
                "the master key does not open the secrets in \(path) (\(error)); give the key the source was sealed with"
            )
        }
        guard let sqlite = source.store as? SQLiteTenantStore else {
            throw CLIError.failure("--from must be a SQLite file")
        }
        let target: PostgresDatabase
        do {
            target = try PostgresDatabase(url: url, sealer: source.sealer, logger: Logger(label: "gatewayctl"))
        } catch let error as PostgresURL.Invalid {
            throw CLIError.invalid("--to: \(error.description)")
        }
        defer { Task { await target.shutdown() } }
        let json = global.json
        let counts: [(table: String, rows: Int)]
        do {
            counts = try await PostgresCopy.copy(from: sqlite, to: target, force: force) { table, rows in
                if !json { context.print("copied \(rows) rows of \(table)") }
            }
        } catch let refusal as PostgresCopy.Refusal {
            throw CLIError.invalid(refusal.description)
        }
        await target.shutdown()
        if json {
            try context.printJSON(
                Report(
                    from: path, to: target.location,
                    tables: Dictionary(uniqueKeysWithValues: counts.map { ($0.table, $0.rows) })))
        } else {
            context.print(
                "copied \(counts.reduce(0) { $0 + $1.rows }) rows in \(counts.count) tables from \(path) to \(target.location) (one transaction)"
            )
        }
    }
}
