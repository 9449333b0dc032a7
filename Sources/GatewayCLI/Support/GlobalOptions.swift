import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Options every gatewayctl command accepts.
struct GlobalOptions: ParsableArguments {
    /// Default database path when neither `--db` nor `GATEWAY_DATABASE_PATH` is set.
    static let defaultDatabasePath = "./.gateway/gateway.sqlite"

    @Option(name: .customLong("db"), help: ArgumentHelp(
        "SQLite database file (default: $GATEWAY_DATABASE_PATH, else \(defaultDatabasePath)).",
        valueName: "path"))
    var databasePath: String?

    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL URL postgres://user:password@host:5432/db?sslmode=… (default: $GATEWAY_DATABASE_URL); wins over --db.",
            valueName: "url"))
    var databaseURL: String?

    @Option(
        name: .customLong("master-key-file"),
        help: ArgumentHelp(
            "File holding the base64 master key (default: $GATEWAY_MASTER_KEY, $GATEWAY_MASTER_KEY_FILE, else the development key master.key beside the database unless GATEWAY_ENVIRONMENT=production).",
            valueName: "path"))
    var masterKeyFile: String?

    @Option(
        help: ArgumentHelp("Who makes the change, recorded in the audit log (default: the OS user).", valueName: "name")
    )
    var actor: String?

    @Flag(help: "Machine-readable JSON output.")
    var json = false

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp(
            "The admin API to act through (default: $GATEWAY_ADMIN_URL, else the server of gatewayctl login); commands that have no API yet refuse it.",
            valueName: "url"))
    var server: String?

    @Flag(name: .customLong("local"), help: "Act on the database even when signed in to an admin API.")
    var local = false

    /// The database path after flags and environment.
    func resolvedDatabasePath(_ environment: [String: String]) -> String {
        if let databasePath, !databasePath.isEmpty { return databasePath }
        if let path = environment["GATEWAY_DATABASE_PATH"], !path.isEmpty { return path }
        return Self.defaultDatabasePath
    }

    /// The PostgreSQL URL after flags and environment (nil: SQLite).
    func resolvedDatabaseURL(_ environment: [String: String]) -> String? {
        if let databaseURL, !databaseURL.isEmpty { return databaseURL }
        if let url = environment["GATEWAY_DATABASE_URL"], !url.isEmpty { return url }
        return nil
    }

    /// The audit actor: `--actor`, else `USER`/`LOGNAME`, else the passwd entry of the uid.
    func resolvedActor(_ environment: [String: String]) -> String {
        for candidate in [actor, environment["USER"], environment["LOGNAME"]] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name {
            return String(cString: name)
        }
        return "uid:\(getuid())"
    }

    func validate() throws {
        if let actor,
            actor.isEmpty || actor.count > 200
                || actor.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            throw ValidationError("--actor must be 1-200 characters without control characters")
        }
    }
}
