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

/// A storage engine's own error that can mean ``DatabaseUnavailable`` (SQLite: the file locked
/// by another process past the busy timeout, an I/O error, a full disk), so the HTTP layer
/// answers it as one without knowing the engine.
public protocol DatabaseUnavailableConvertible: Error {
    /// The unavailability this error means; nil when it means something else (a constraint, a bug).
    var databaseUnavailable: DatabaseUnavailable? { get }
}

extension DatabaseUnavailable {
    /// `error` as an unavailability: itself, or what an engine's error means (nil otherwise).
    public init?(meaning error: any Error) {
        if let unavailable = error as? DatabaseUnavailable {
            self = unavailable
        } else if let unavailable = (error as? any DatabaseUnavailableConvertible)?.databaseUnavailable {
            self = unavailable
        } else {
            return nil
        }
    }
}

/// The request held text the database cannot store (PostgreSQL's `text` refuses U+0000:
/// SQLSTATE 22021 or 22P05), caught where no validation refused it first (issue 62 §2): the
/// client's input, answered 400, never a 500. Nothing was written (the statement failed).
public struct UnstorableText: Error, Sendable, CustomStringConvertible {
    public init() {}

    public var description: String { "the request holds a character the database cannot store (U+0000)" }
}
