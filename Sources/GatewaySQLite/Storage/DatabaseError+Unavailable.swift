import GRDB
import GatewayCore

/// SQLite errors that mean the file cannot be used now, not that the request or the code is
/// wrong: another process (`gatewayctl` in a long transaction) holds the write lock past the
/// busy timeout, the disk failed or is full, the file cannot be opened. Answered 503
/// `database_unavailable` with `Retry-After`, as PostgreSQL's outages are (issue 47), not 500.
extension DatabaseError: DatabaseUnavailableConvertible {
    public var databaseUnavailable: DatabaseUnavailable? {
        switch resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CANTOPEN, .SQLITE_NOMEM,
            .SQLITE_PROTOCOL:
            return DatabaseUnavailable(reason: "sqlite: \(resultCode)")
        default:
            return nil
        }
    }
}
