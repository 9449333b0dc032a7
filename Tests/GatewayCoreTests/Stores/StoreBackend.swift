import Foundation
import GatewayPostgres
import Logging
import Synchronization
import Testing
@testable import GatewayCore
@testable import GatewaySQLite

/// A database engine the store contract runs on. SQLite always; PostgreSQL when
/// `GATEWAY_TEST_POSTGRES_URL` names a server (`make test` starts one and sets it).
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// The engines to run a contract test on.
    static var available: [StoreBackend] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// Only PostgreSQL (empty without a server): cross-process behaviour of the server engine.
    static var postgresOnly: [StoreBackend] { postgresURL == nil ? [] : [.postgres] }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["GATEWAY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var testDescription: String { rawValue }
}

/// One fresh, empty database for one test: a SQLite file in a temp folder, or a schema
/// of its own on the PostgreSQL server. ``another()`` opens a second instance on the same
/// data with its own connections, as another process would.
final class TestDatabase: Sendable {
    let backend: StoreBackend
    /// The stores of the first instance.
    let stores: DurableStores
    private let folder: TemporaryFolder?
    private let schema: String?
    private let postgres: PostgresDatabase?
    private let sqlite: SQLiteTenantStore?
    private let opened = Mutex<[DurableStores]>([])

    private init(
        backend: StoreBackend, stores: DurableStores, folder: TemporaryFolder?, schema: String?,
        postgres: PostgresDatabase?, sqlite: SQLiteTenantStore?
    ) {
        self.backend = backend
        self.stores = stores
        self.folder = folder
        self.schema = schema
        self.postgres = postgres
        self.sqlite = sqlite
    }

    /// - Parameter migrateUpTo: apply the migrations up to and including this one only
    ///   (an older build's database); nil applies all.
    static func make(
        _ backend: StoreBackend, sealer: SecretSealer = Fixtures.sealer, migrateUpTo: String? = nil
    ) async throws -> TestDatabase {
        switch backend {
        case .sqlite:
            let folder = try TemporaryFolder()
            let store = try SQLiteTenantStore(path: folder.file("gateway.sqlite"), sealer: sealer, migrate: false)
            if let migrateUpTo { try store.migrate(upTo: migrateUpTo) } else { try store.migrate() }
            return TestDatabase(
                backend: backend, stores: store.durableStores(), folder: folder, schema: nil, postgres: nil,
                sqlite: store)
        case .postgres:
            let url = try #require(StoreBackend.postgresURL)
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = try PostgresDatabase(url: url, sealer: sealer, logger: Self.quiet)
            try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
            await admin.shutdown()
            let database = try PostgresDatabase(url: url, sealer: sealer, logger: Self.quiet, searchPath: schema)
            try await database.migrate(upTo: migrateUpTo)
            return TestDatabase(
                backend: backend, stores: PostgresStores.stores(on: database), folder: nil, schema: schema,
                postgres: database, sqlite: nil)
        }
    }

    /// A second instance on the same data, with its own connection pool (another process).
    func another(sealer: SecretSealer = Fixtures.sealer) async throws -> DurableStores {
        let stores: DurableStores
        switch backend {
        case .sqlite:
            stores = try SQLiteTenantStore(path: try #require(sqlite).path, sealer: sealer).durableStores()
        case .postgres:
            stores = try await PostgresStores.open(
                url: try #require(StoreBackend.postgresURL), sealer: sealer, logger: Self.quiet, searchPath: schema)
        }
        opened.withLock { $0.append(stores) }
        return stores
    }

    /// Runs SQL that both engines accept.
    func execute(_ sql: String) async throws {
        if let sqlite { try sqlite.execute(sql: sql) } else { try await #require(postgres).execute(unsafeSQL: sql) }
    }

    /// The first column of the first row of `sql` as an integer.
    func integer(_ sql: String) async throws -> Int64? {
        if let sqlite { return try sqlite.integer(sql: sql) }
        return try await #require(postgres).integer(unsafeSQL: sql)
    }

    /// The first column of the first row of `sql` as text.
    func string(_ sql: String) async throws -> String? {
        if let sqlite { return try sqlite.texts(sql: sql).first }
        return try await #require(postgres).texts(unsafeSQL: sql).first
    }

    /// Applies the pending migrations.
    func migrate() async throws {
        if let sqlite { try sqlite.migrate() } else { try await #require(postgres).migrate(upTo: nil) }
    }

    /// Everything the database holds, as bytes to search for plaintext: the SQLite files,
    /// or every row of every table of the schema as text.
    func bytesAtRest() async throws -> Data {
        if let folder {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).reduce(into: Data()) { all, name in
                all += FileManager.default.contents(atPath: folder.file(name)) ?? Data()
            }
        }
        let database = try #require(postgres)
        let tables = try await database.texts(
            unsafeSQL: "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        var all = Data()
        for table in tables {
            for row in try await database.texts(unsafeSQL: "SELECT row_to_json(t)::text FROM \(table) t") {
                all += Data(row.utf8)
            }
        }
        return all
    }

    /// Closes every pool and deletes the data (in the background: `defer` cannot wait).
    func remove() {
        let extra = opened.withLock { list in defer { list = [] }; return list }
        let stores = self.stores, folder = self.folder, schema = self.schema
        Task {
            for other in extra { await other.close() }
            await stores.close()
            folder?.remove()
            if let schema, let url = StoreBackend.postgresURL,
                let admin = try? PostgresDatabase(url: url, sealer: Fixtures.sealer, logger: Self.quiet)
            {
                _ = try? await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                await admin.shutdown()
            }
        }
    }

    static let quiet = Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}
