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

/// Keeps this replica's ``RevocationMirror`` complete: follows the feed, and after a
/// break (Redis restart, network) waits with backoff and follows again. While it is
/// broken, token checks ask Redis directly.
struct RevocationFeedService: Service {
    let feed: any RevocationFeed
    let mirror: RevocationMirror
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var delay = Duration.milliseconds(100)
            while !Task.isCancelled {
                let started = ContinuousClock.now
                do {
                    try await feed.follow(into: mirror)
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("revocation feed broken; asking Redis per request until it is back", metadata: ["error": "\(error)"])
                }
                // A feed that ran a while had recovered: start the backoff afresh.
                delay = ContinuousClock.now - started > .seconds(5) ? .milliseconds(100) : delay
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}
