import Foundation
import OpenAPIRuntime

/// One line a person can act on when a call to the admin API fails below HTTP (issue 62 §3):
/// the server it went to, why in a few words, and the ways out, never a dump of the generated
/// client's types. The server is often the one a `gatewayctl login` saved, long gone.
enum AdminUnreachable {
    static func message(_ error: ClientError) -> String {
        let server = error.baseURL?.absoluteString ?? "the saved server"
        let cause = String(describing: error.underlyingError)
        let reason: String
        if cause.localizedCaseInsensitiveContains("refused") {
            reason = "connection refused"
        } else if cause.localizedCaseInsensitiveContains("timeout") || cause.localizedCaseInsensitiveContains("timed out") {
            reason = "no answer in time"
        } else if cause.localizedCaseInsensitiveContains("resolve") || cause.localizedCaseInsensitiveContains("lookup") {
            reason = "its name does not resolve"
        } else if error.response != nil {
            return "the admin API at \(server) answered \(error.operationID) with something gatewayctl cannot read "
                + "(is it a SuperApp Gateway admin listener of this version?)"
        } else {
            reason = "the connection failed"
        }
        return "cannot reach the admin API at \(server) (\(reason)): start it (gateway serve --admin-port …), "
            + "or run gatewayctl logout to forget a saved session, or add --local to act on the database"
    }
}
