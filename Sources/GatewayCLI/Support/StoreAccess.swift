import Foundation
import GatewayCore

/// Opens the tenant store the way the gateway does: same database path rules, same
/// master-key resolution (development mode unless `GATEWAY_ENVIRONMENT=production`).
struct StoreAccess {
    let store: SQLiteTenantStore
    let sealer: SecretSealer
    let actor: String

    /// - Parameter create: whether this command may create a missing database (only the
    ///   commands that set up an installation: `migrate`, `tenant create`, `tenant import`).
    ///   Every other command refuses a missing file before anything is written, so a typo
    ///   in `--db` creates neither a database nor a development master key.
    init(_ options: GlobalOptions, context: CLIContext, migrate: Bool = true, create: Bool = false) throws {
        let environment = context.environment
        let path = options.resolvedDatabasePath(environment)
        if !create, !FileManager.default.fileExists(atPath: path) {
            throw CLIError.failure("no database at \(path) (run `gatewayctl migrate` first, or point --db / GATEWAY_DATABASE_PATH at an existing one)")
        }
        let production = environment["GATEWAY_ENVIRONMENT"]?.lowercased() == "production"
        let resolved: (key: MasterKey, source: MasterKeySource)
        if let file = options.masterKeyFile, !file.isEmpty {
            resolved = try MasterKey.resolve(base64: nil, file: file, databasePath: path, developmentMode: false)
        } else {
            resolved = try MasterKey.resolve(
                base64: environment["GATEWAY_MASTER_KEY"],
                file: environment["GATEWAY_MASTER_KEY_FILE"],
                databasePath: path,
                developmentMode: !production
            )
        }
        if case .generated(let keyPath) = resolved.source {
            context.printError(
                "warning: generated a new DEVELOPMENT master key at \(keyPath); secrets in \(path) are sealed with it. "
                    + "Back it up, and set GATEWAY_MASTER_KEY or GATEWAY_MASTER_KEY_FILE in production."
            )
        }
        sealer = SecretSealer(masterKey: resolved.key)
        store = try SQLiteTenantStore(path: path, sealer: sealer, migrate: migrate)
        actor = options.resolvedActor(environment)
    }
}
