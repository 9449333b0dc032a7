import GatewayCore
import Logging
import PostgresNIO

/// Tenant changes announced by PostgreSQL: every write that bumps the change counter also
/// runs `pg_notify` (delivered at commit), and this listens on one pooled connection. After
/// a lost connection it reconnects (backoff up to 5 s) and fires once, so nothing missed
/// while away waits for the poll.
public struct PostgresTenantChangeSignal: TenantChangeSignal {
    let database: PostgresDatabase
    let logger: Logger

    public init(database: PostgresDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    public func follow(_ changed: @escaping @Sendable () -> Void) async {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await database.client.withConnection { connection in
                    try await connection.listen(on: PostgresTenantStore.changeChannel) { notifications in
                        changed()
                        backoff = .milliseconds(100)
                        for try await _ in notifications { changed() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "tenant change notifications interrupted; polling until they are back",
                    metadata: ["error": "\(String(reflecting: error))"])
            }
            guard (try? await Task.sleep(for: backoff)) != nil else { return }
            backoff = min(backoff * 2, .seconds(5))
        }
    }
}
