import Foundation
import GatewayCore
import GatewaySQLite
import GatewayPostgres
import Logging

/// Opens the durable stores the way the gateway does: PostgreSQL when a database URL is
/// given (`--database-url`, `GATEWAY_DATABASE_URL`), else the SQLite file (same path rules);
/// same master-key resolution (development mode unless `GATEWAY_ENVIRONMENT=production`).
/// The stores are closed when the command ends (``CLIContext/openedStores``).
struct StoreAccess {
    let stores: DurableStores
    let sealer: SecretSealer
    /// Signs and checks the audit trail's retention checkpoints.
    let checkpoints: AuditCheckpointSigner
    let actor: String

    /// The tenant store.
    var store: any TenantStore { stores.tenants }

    /// - Parameters:
    ///   - migrate: apply pending migrations on open (`gatewayctl migrate` reports them itself).
    ///   - create: whether this command may create a missing database (only the commands
    ///     that set up an installation: `migrate`, `tenant create`, `tenant import`). Every
    ///     other command refuses a missing SQLite file (or a PostgreSQL database without the
    ///     gateway's schema) before anything is written, so a typo creates nothing.
    ///   - sqliteFile: open this SQLite file, whatever `--database-url` or
    ///     `GATEWAY_DATABASE_URL` say (the source of `db copy`).
    ///   - bootstrap: a command that works on the database whatever admin API is named
    ///     (`migrate`, `db`, `operator`, `audit verify|export`); any other refuses to run on the
    ///     database when `--server` or `GATEWAY_ADMIN_URL` names an API (it has none yet).
    static func open(_ options: GlobalOptions, context: CLIContext, migrate: Bool = true, create: Bool = false,
                     sqliteFile: String? = nil, bootstrap: Bool = false) async throws -> StoreAccess {
        let environment = context.environment
        if !bootstrap, !options.local,
            let server = options.server ?? environment["GATEWAY_ADMIN_URL"].flatMap({ $0.isEmpty ? nil : $0 })
        {
            throw CLIError.invalid(
                "this command does not go through the admin API yet (\(server)); run it on the database with --local")
        }
        let path = sqliteFile ?? options.resolvedDatabasePath(environment)
        let url = sqliteFile == nil ? options.resolvedDatabaseURL(environment) : nil
        if url == nil, !create, !FileManager.default.fileExists(atPath: path) {
            throw CLIError.failure(
                "no database at \(path) (run `gatewayctl migrate` first, or point --db / GATEWAY_DATABASE_PATH at an existing one)"
            )
        }
        if let url, !create {
            // Before the master key is resolved: a wrong URL must not generate a development key.
            let probe = try await openPostgres(url, sealer: SecretSealer(masterKey: .generate()), context: context)
            if try await probe.schema.applied().isEmpty {
                throw CLIError.failure(
                    "the database at \(probe.location) has no gateway schema (run `gatewayctl migrate --database-url …` first)"
                )
            }
        }
        let key = try masterKey(options, context: context, databasePath: path)
        let sealer = SecretSealer(masterKey: key)
        let stores: DurableStores
        if let url {
            stores = try await openPostgres(url, sealer: sealer, context: context)
            if migrate { try await stores.schema.migrate() }
        } else {
            stores = try SQLiteTenantStore(path: path, sealer: sealer, migrate: migrate).durableStores()
        }
        return StoreAccess(
            stores: stores, sealer: sealer, checkpoints: AuditCheckpointSigner(masterKey: key),
            actor: options.resolvedActor(environment))
    }

    /// Opens the PostgreSQL stores (closed when the command ends), without migrating.
    private static func openPostgres(
        _ url: String, sealer: SecretSealer, context: CLIContext
    ) async throws -> DurableStores {
        let stores: DurableStores
        do {
            stores = try await PostgresStores.open(
                url: url, sealer: sealer, logger: Logger(label: "gatewayctl"), migrate: false)
        } catch let error as PostgresURL.Invalid {
            throw CLIError.invalid("--database-url: \(error.description)")
        }
        context.openedStores.add(stores)
        return stores
    }

    private static func masterKey(
        _ options: GlobalOptions, context: CLIContext, databasePath path: String
    ) throws -> MasterKey {
        let environment = context.environment
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
                "warning: generated a new DEVELOPMENT master key at \(keyPath); secrets in the database are sealed with it. "
                    + "Back it up, and set GATEWAY_MASTER_KEY or GATEWAY_MASTER_KEY_FILE in production."
            )
        }
        return resolved.key
    }
}
