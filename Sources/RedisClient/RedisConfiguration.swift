/// Where and how `RedisClient` connects.
public struct RedisConfiguration: Sendable, Equatable {
    /// Host name or IP address of the server.
    public var host: String
    /// TCP port of the server.
    public var port: Int
    /// Password sent with `AUTH` on every new connection, if any.
    public var password: String?
    /// ACL user name sent with `AUTH user password` (only used together with `password`).
    public var username: String?
    /// Database index selected with `SELECT` on every new connection (0 sends nothing).
    public var database: Int
    /// Maximum number of pooled connections, created lazily (at least 1).
    public var poolSize: Int
    /// How long a command may wait for its reply before failing with `RedisError.timeout`.
    public var commandTimeout: Duration
    /// How long establishing a TCP connection may take.
    public var connectTimeout: Duration
    /// Delay before the first reconnect attempt after a failed connect.
    public var reconnectInitialBackoff: Duration
    /// Upper bound of the exponentially growing reconnect delay.
    public var reconnectMaxBackoff: Duration
    /// When set, `host`/`port` are ignored: the master is discovered through these sentinels and
    /// followed across failovers.
    public var sentinel: RedisSentinelConfiguration?
    /// When set, every connection (to Redis and to sentinels) is TLS.
    public var tls: RedisTLSConfiguration?

    /// Creates a configuration; every parameter has a usable default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 6379,
        password: String? = nil,
        username: String? = nil,
        database: Int = 0,
        poolSize: Int = 4,
        commandTimeout: Duration = .seconds(2),
        connectTimeout: Duration = .seconds(2),
        reconnectInitialBackoff: Duration = .milliseconds(50),
        reconnectMaxBackoff: Duration = .seconds(2),
        sentinel: RedisSentinelConfiguration? = nil,
        tls: RedisTLSConfiguration? = nil
    ) {
        self.host = host
        self.port = port
        self.password = password
        self.username = username
        self.database = database
        self.poolSize = poolSize
        self.commandTimeout = commandTimeout
        self.connectTimeout = connectTimeout
        self.reconnectInitialBackoff = reconnectInitialBackoff
        self.reconnectMaxBackoff = reconnectMaxBackoff
        self.sentinel = sentinel
        self.tls = tls
    }

    /// Where commands go, for messages: `host:port`, or the master name and its sentinels.
    public var addressDescription: String {
        guard let sentinel else { return RedisEndpoint(host: host, port: port).description }
        return
            "master '\(sentinel.masterName)' via sentinels \(sentinel.sentinels.map(\.description).joined(separator: ","))"
    }

    /// This configuration aimed at one server (a discovered master), with the same credentials.
    func node(_ endpoint: RedisEndpoint) -> RedisConfiguration {
        var node = self
        node.host = endpoint.host
        node.port = endpoint.port
        return node
    }
}

/// The address of one Redis or Sentinel server.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address.
    public var host: String
    /// TCP port.
    public var port: Int

    /// Creates an endpoint.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port` (`[v6]:port` for IPv6 addresses).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
