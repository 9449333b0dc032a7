import Hummingbird
import Logging

/// Starts a Hummingbird application for a fake upstream on a free port of 127.0.0.1 (the
/// fakes' shared plumbing): returns its port once it listens and the task running it (cancel
/// it to stop the server).
enum LocalTestServer {
    static func start(
        _ router: Router<BasicRequestContext>, label: String
    ) async throws -> (task: Task<Void, any Error>, port: Int) {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CancellationError()
        }
        return (task, port)
    }
}
