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

/// A periodic clean-up (analytics past their retention, dead refresh state) that runs until
/// the server shuts down.
struct RetentionService: Service {
    let loop: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await loop()
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
