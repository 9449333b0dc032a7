import AsyncHTTPClient
import NIOCore

/// The ONE AsyncHTTPClient of the process, tuned for fan-out to upstreams.
enum UpstreamHTTPClientFactory {
    static func make(connectionsPerHost: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(10))
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
