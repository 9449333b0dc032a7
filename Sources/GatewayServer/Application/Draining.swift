import Logging
import ServiceLifecycle
import Synchronization

/// Whether this process is shutting down: readiness fails from the moment SIGTERM arrives,
/// so load balancers stop sending before the server stops accepting.
public final class DrainState: Sendable {
    private let draining = Atomic(false)

    public init() {}

    /// True once a graceful shutdown began.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    func start() { draining.store(true, ordering: .relaxed) }

    /// The readiness check that fails while draining.
    var check: ReadinessProbe.Check {
        ReadinessProbe.Check(name: "draining") { [self] in
            if isDraining { throw Draining() }
        }
    }

    struct Draining: Error, CustomStringConvertible {
        var description: String { "shutting down" }
    }
}

/// The first service to hear a graceful shutdown (it runs after the application in the
/// service group, and groups stop in reverse order): it marks the process draining, keeps
/// serving for `delay`, and only then lets the HTTP server stop accepting.
struct DrainService: Service {
    let state: DrainState
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        state.start()
        logger.notice(
            "shutting down: /readyz answers 503; serving for \(delay) more, then finishing in-flight requests")
        try? await Task.sleep(for: delay)
    }
}
