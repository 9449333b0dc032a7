/// Every error thrown by `RedisClient`.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `redis://` URL could not be parsed; the payload explains why.
    case invalidURL(String)
    /// No connection could be made, or the connection was lost while the command was in flight.
    case connectionFailed(String)
    /// No reply arrived within `RedisConfiguration.commandTimeout`.
    case timeout
    /// The server answered with an error reply; the payload is its message (e.g. `"WRONGTYPE ..."`).
    case server(String)
    /// The server sent bytes that are not valid RESP.
    case protocolError(String)
    /// The reply was valid RESP but not of the type the typed helper expected.
    case unexpectedReply(String)
    /// The client was shut down.
    case shutdown

    /// A human-readable description of the error.
    public var description: String {
        switch self {
        case .invalidURL(let reason): return "invalid Redis URL: \(reason)"
        case .connectionFailed(let reason): return "Redis connection failed: \(reason)"
        case .timeout: return "Redis command timed out"
        case .server(let message): return "Redis server error: \(message)"
        case .protocolError(let reason): return "Redis protocol error: \(reason)"
        case .unexpectedReply(let reason): return "unexpected Redis reply: \(reason)"
        case .shutdown: return "Redis client was shut down"
        }
    }
}

extension RedisError {
    /// Maps any error surfacing from NIO or elsewhere to a `RedisError`.
    static func wrapping(_ error: any Error) -> RedisError {
        if let redisError = error as? RedisError { return redisError }
        return .connectionFailed(String(describing: error))
    }
}
