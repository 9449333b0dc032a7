import AsyncHTTPClient
import NIOCore
import NIOSSL
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

/// The HTTP client of providers (push, SMS): a pool of its own per kind, so deliveries never
/// take the connections of request fan-out; HTTP/2 where offered over TLS (APNs requires it).
/// With `caFile`, providers' certificates are verified against its authorities instead of the
/// system's (the courier's `GATEWAY_COURIER_CA_FILE`, as for SMTP relays).
enum ProviderHTTPClientFactory {
    static func make(connectionsPerHost: Int, caFile: String? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        if let caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(caFile)
            configuration.tlsConfiguration = tls
        }
        configuration.httpVersion = .automatic
        configuration.connectionPool = .init(
            idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, connectionsPerHost))
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(15))
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
