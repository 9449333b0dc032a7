#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one client connection may hold: how long it may take to send a request's head and
/// body, how long it may sit idle between requests, and how many connections the server
/// keeps at once. A hostile client costs at most these, never what it chooses to send.
public struct ConnectionLimits: Sendable, Equatable {
    /// From a connection's first byte of a request (or from accepting it) to the end of the
    /// request head; past it the connection is closed.
    public var headerTimeout: Duration
    /// From the end of the request head to the end of its body.
    public var bodyTimeout: Duration
    /// A keep-alive connection with no request in flight is closed after this long; it
    /// also bounds the time to write a response once the request has been read.
    public var idleTimeout: Duration
    /// Connections held at once. Past 80 % of it the server is overloaded and sheds idle
    /// connections and unfinished heads (see ``ConnectionAdmission``); at the cap with
    /// nothing to shed a new connection is closed at once. nil = derived from the
    /// descriptor limit.
    public var maxConnections: Int?
    /// Connections held at once from one client address (0 = no cap); trusted proxies' own
    /// connections are exempt, and a PROXY protocol connection counts against the client
    /// its header names.
    public var maxConnectionsPerAddress: Int
    /// Requests in flight at once from one resolved client address (0 = no cap); more are
    /// answered 429 at once.
    public var maxRequestsPerAddress: Int
    /// The header and idle timeout of a head or idle period that begins while overloaded.
    public var overloadTimeout: Duration
    /// After an early answer (a refused body), how long the server keeps reading and
    /// discarding what the client still sends, so that it reads the answer instead of a
    /// reset; and at most how many bytes.
    public var lingerTime: Duration
    public var lingerBytes: Int

    public init(
        headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(60), maxConnections: Int? = nil,
        maxConnectionsPerAddress: Int = 256, maxRequestsPerAddress: Int = 256, overloadTimeout: Duration = .seconds(1),
        lingerTime: Duration = .seconds(2), lingerBytes: Int = 256 * 1024
    ) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxRequestsPerAddress = maxRequestsPerAddress
        self.overloadTimeout = overloadTimeout
        self.lingerTime = lingerTime
        self.lingerBytes = lingerBytes
    }

    /// How long `phase` may last; a head or idle period that begins while overloaded gets
    /// at most ``overloadTimeout``.
    func timeout(of phase: ConnectionDeadlines.Phase, overloaded: Bool) -> Duration {
        switch phase {
        case .awaitingHead: overloaded ? min(headerTimeout, overloadTimeout) : headerTimeout
        case .readingBody: bodyTimeout
        case .responding: idleTimeout
        case .idle: overloaded ? min(idleTimeout, overloadTimeout) : idleTimeout
        }
    }

    /// Descriptors kept free for everything but client connections (Redis, the database,
    /// upstream connections, files), at least.
    static let reservedDescriptors = 256

    /// The cap in force: the configured one, never above what the descriptor limit leaves
    /// after the reserve (so a full server still opens its own connections and files).
    public func effectiveMaxConnections(descriptorLimit: Int = Self.descriptorLimit()) -> Int {
        let reserve = max(Self.reservedDescriptors, descriptorLimit / 8)
        let ceiling = max(32, descriptorLimit - reserve)
        return min(maxConnections ?? ceiling, ceiling)
    }

    /// The soft limit on open descriptors, raised to the hard limit first (a server that
    /// holds thousands of connections needs it, and raising the soft limit is allowed).
    public static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
