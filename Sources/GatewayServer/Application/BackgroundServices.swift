import GatewayCore
import Logging
import ServiceLifecycle

/// Keeps the in-memory tenant snapshot fresh until the server shuts down.
struct TenantDirectoryService: Service {
    let directory: TenantDirectory

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await directory.run()
        }
    }
}

/// Runs a shutdown action once the service group shuts down (closing Redis connections
/// after the HTTP server has drained).
struct ShutdownActionService: Service {
    let action: @Sendable () async -> Void

    func run() async throws {
        try? await gracefulShutdown()
        await action()
    }
}

/// Deletes analytics past their retention, hourly, until the server shuts down.
struct AnalyticsRetentionService: Service {
    let retention: AnalyticsRetention

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await retention.run()
        }
    }
}

/// Keeps this replica's ``RevocationMirror`` complete (see ``RevocationSync``) until the
/// server shuts down.
struct RevocationSyncService: Service {
    let sync: RevocationSync
    /// Where the poll continues after ``RevocationSync/start()``.
    let cursor: Int64

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await sync.run(from: cursor)
        }
    }
}
