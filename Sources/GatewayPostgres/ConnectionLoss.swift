import GatewayCore
import PostgresNIO

/// Tells a lost or refused connection (the server restarting, failing over, out of reach)
/// from every other error, so it surfaces as ``DatabaseUnavailable`` (503, retry) instead of
/// an internal error; and text the server cannot store as ``UnstorableText`` (400).
enum ConnectionLoss {
    /// SQLSTATE classes of a server that is going away or not accepting: 08 (connection
    /// exception), 57P (operator intervention: shutdown, crash, cannot connect now), and
    /// 53300 (too many connections).
    static func isServerGoingAway(_ state: String) -> Bool {
        state.hasPrefix("08") || state.hasPrefix("57P") || state == "53300"
    }

    /// `error` as ``DatabaseUnavailable`` when it is a connection loss, else unchanged; a loss
    /// makes `breaker` probe the database now.
    static func classify(_ error: any Error, breaker: DatabaseBreaker?) -> any Error {
        let classified = classify(error)
        if classified is DatabaseUnavailable, !(error is DatabaseUnavailable) { breaker?.connectionLost() }
        return classified
    }

    /// `error` as ``DatabaseUnavailable`` when it is a connection loss, else unchanged.
    static func classify(_ error: any Error) -> any Error {
        guard let psql = error as? PSQLError else { return error }
        switch psql.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return DatabaseUnavailable(reason: "\(psql.code)")
        case .server:
            if let state = psql.serverInfo?[.sqlState], isServerGoingAway(state) {
                return DatabaseUnavailable(reason: "server \(state)")
            }
            // Text `text` cannot hold (U+0000): the request's fault, not the server's.
            if let state = psql.serverInfo?[.sqlState], state == "22021" || state == "22P05" { return UnstorableText() }
            return error
        default:
            return error
        }
    }
}
