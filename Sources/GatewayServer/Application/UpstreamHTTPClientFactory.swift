import AsyncHTTPClient
import NIOCore
import Tracing

/// The ONE AsyncHTTPClient of the process, tuned for fan-out to upstreams.
enum UpstreamHTTPClientFactory {
    /// - Parameter tracer: when set, every upstream call is a client span and carries the
    ///   current trace context (`traceparent`).
    static func make(connectionsPerHost: Int, tracer: (any Tracer)? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.tracing.tracer = tracer
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(10))
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
