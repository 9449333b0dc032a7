import Foundation
import GatewayCore
import GatewayPostgres
import Logging
import Testing

/// The database a test gateway keeps its durable state in: a SQLite file, or (when
/// `GATEWAY_TEST_POSTGRES_URL` names a server, as in `make test`) a PostgreSQL schema of
/// its own, reached through the same `GATEWAY_DATABASE_URL` a deployment uses.
enum DatabaseBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// SQLite, and PostgreSQL when a server is configured.
    static var available: [DatabaseBackend] { serverURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    static var serverURL: String? {
        ProcessInfo.processInfo.environment["GATEWAY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var testDescription: String { rawValue }

    /// A fresh schema on the server; returns the database URL that selects it.
    static func makeSchema() async throws -> (url: String, schema: String) {
        let url = try #require(serverURL)
        let schema = "gw_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresDatabase(url: url, sealer: SecretSealer(masterKey: .generate()), logger: quiet)
        try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
        await admin.shutdown()
        return (url + (url.contains("?") ? "&" : "?") + "search_path=\(schema)", schema)
    }

    /// Drops a schema made by ``makeSchema()``.
    static func dropSchema(_ schema: String) async {
        guard let url = serverURL,
            let admin = try? PostgresDatabase(url: url, sealer: SecretSealer(masterKey: .generate()), logger: quiet)
        else { return }
        _ = try? await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
        await admin.shutdown()
    }

    static let quiet = Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}
