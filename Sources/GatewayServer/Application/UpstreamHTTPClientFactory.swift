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

/// The HTTP client of push providers: its own pool, so deliveries never take the connections of
/// request fan-out; HTTP/2 where offered over TLS (APNs requires it).
enum PushHTTPClientFactory {
    static func make(connectionsPerHost: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .automatic
        configuration.connectionPool = .init(
            idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, connectionsPerHost))
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(15))
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
