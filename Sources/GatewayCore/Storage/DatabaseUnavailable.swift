/// The tenant database could not be reached or lost the connection mid-request (PostgreSQL
/// restarting, failing over, unreachable): the request may succeed when retried in a moment.
/// Whatever the request wrote in an unfinished transaction was rolled back.
public struct DatabaseUnavailable: Error, Sendable, CustomStringConvertible {
    /// What the client library reported; for logs only.
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "database unavailable: \(reason)" }
}
