import GatewayCore
import Logging
import ServiceLifecycle

/// The services that run beside the HTTP server, named by when they must stop. A service
/// group starts them in ``inStartOrder`` and, after the HTTP server has drained, stops them
/// in reverse: first the loops (revocation sync, retention), then the Redis client they use,
/// then the upstream HTTP client, the tenant reload, and the database last.
struct BackgroundServices {
    /// Closes the durable stores: stops last.
    var closeStores: any Service
    /// Keeps the tenant snapshot fresh.
    var tenantReload: any Service
    /// Shuts the upstream HTTP client down once no request can use it.
    var closeUpstreamHTTP: (any Service)?
    /// Shuts the push providers' HTTP client down after the delivery worker stopped.
    var closePushHTTP: (any Service)?
    /// Shuts the SMS providers' HTTP client down after the courier stopped.
    var closeCourierHTTP: (any Service)?
    /// Shuts the Redis client down once nothing uses it (nil without Redis).
    var closeRedis: (any Service)?
    /// Loops that use the stores and Redis: stop first.
    var loops: [any Service] = []

    init(closeStores: any Service, tenantReload: any Service) {
        self.closeStores = closeStores
        self.tenantReload = tenantReload
    }

    /// Start order; the service group stops them in reverse.
    var inStartOrder: [any Service] {
        [closeStores, tenantReload] + [closeUpstreamHTTP, closePushHTTP, closeCourierHTTP, closeRedis].compactMap { $0 } + loops
    }
}

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

/// A background loop (analytics past their retention, dead refresh state, push delivery) that
/// runs until the server shuts down.
struct RetentionService: Service {
    let loop: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await loop()
        }
    }
}

/// Work done once after start (sealing rows a migration left unsealed), then idle until the
/// server shuts down: a service that returned would end the whole service group.
struct OnceAfterStartService: Service {
    let work: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown { await work() }
        try? await gracefulShutdown()
    }
}

/// Works an outbox (push's, the courier's) until the server shuts down; then stops it gracefully
/// (``PushDeliveryWorker/stop()``, ``CourierDeliveryWorker/stop()``): the sends in flight
/// finish and are recorded, unstarted claims go back to the outbox. Stops before the providers'
/// HTTP client is shut down (loops stop first).
struct OutboxWorkerService: Service {
    let work: @Sendable () async -> Void
    let stop: @Sendable () -> Void

    init(_ worker: PushDeliveryWorker) {
        (work, stop) = ({ await worker.run() }, { worker.stop() })
    }

    init(_ worker: CourierDeliveryWorker) {
        (work, stop) = ({ await worker.run() }, { worker.stop() })
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await work()
        } onGracefulShutdown: {
            stop()
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

/// Runs `flush` every `interval` until the server shuts down, then once more, so what was
/// counted last is not lost (the tenant traffic of the console's overview).
struct ShutdownFlushService: Service {
    let interval: Duration
    let flush: @Sendable () async -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await flush()
            }
        }
        await flush()
    }
}
