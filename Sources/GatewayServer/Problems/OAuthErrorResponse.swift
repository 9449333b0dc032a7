import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird

/// The OAuth endpoints answer every error as RFC 6749 §5.2 JSON
/// (`{"error", "error_description"}`), including the ones the gateway raises before or
/// around their handlers (an unknown tenant, a body that cannot be parsed, one that is too
/// large, a rate limit): clients of these endpoints parse nothing else. Which endpoints: the
/// operations the contract marks `x-gateway-errors: oauth` (UserInfo is a protected
/// resource: RFC 6750 errors in `WWW-Authenticate`, problem documents in the body).
enum OAuthErrorResponse {
    /// The RFC 6749 error code for a problem's status.
    static func code(for problem: GatewayProblem) -> String {
        switch problem.status {
        case 401: "invalid_client"
        case 403: "access_denied"
        case 429, 503: "temporarily_unavailable"
        case 500...: "server_error"
        default: "invalid_request"
        }
    }

    /// - Parameter error: the RFC 6749 code when the refusal was an ``OAuthError`` (else it
    ///   follows from the problem's status, see ``code(for:)``).
    static func make(_ problem: GatewayProblem, error: String? = nil) -> Response {
        // Written as a JSONValue (JSONValueWriter), not through JSONEncoder: that was 3.5 % of a
        // refused token request (issue 32). Same bytes: keys sorted, slashes unescaped.
        let body = JSONValue.object([
            "error": .string(error ?? code(for: problem)),
            "error_description": .string(problem.detail ?? problem.title),
        ])
        let bytes = (try? body.encoded()) ?? Data(#"{"error":"server_error"}"#.utf8)
        let headers = problem.responseFields(contentType: "application/json; charset=utf-8")
        return Response(
            status: HTTPResponse.Status(code: problem.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
