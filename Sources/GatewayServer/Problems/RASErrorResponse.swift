import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird

/// The RAS-compatible API (`/t/{tenant}/ras/…`) answers errors the way both Rakuten MiniApp
/// SDKs read them: 401/403 with `error`/`error_description` (iOS) and `code`/`message` (Android)
/// together, everything else `{"code": <status>, "message"}`. A condition only an operator can
/// fix is never a 5xx there (both SDKs retry 5xx five times with backoff): a tenant without a
/// platform is 404, a platform refusing the gateway's credentials 403; a platform that is down
/// or failing is 503. 503 and 504 always carry `Retry-After`.
enum RASErrorResponse {
    /// The status a problem gets on the RAS API.
    static func status(for problem: GatewayProblem) -> Int {
        switch problem.code {
        case "upstream_not_configured": 404
        case "upstream_rejected": 403
        // The platform down or failing: an outage the SDKs should wait out (Retry-After).
        case "upstream_unavailable": 503
        default: problem.status
        }
    }

    static func make(_ problem: GatewayProblem) -> Response {
        let status = status(for: problem)
        let message = problem.detail ?? problem.title
        let body: [String: JSONValue] =
            status == 401 || status == 403
            ? [
                "error": .string(problem.code), "error_description": .string(message), "code": .string(problem.code),
                "message": .string(message),
            ]
            : ["code": .number(Double(status)), "message": .string(message)]
        let bytes = (try? JSONValue.object(body).encoded()) ?? Data(#"{"code":500,"message":"error"}"#.utf8)
        var headers = problem.responseFields(contentType: "application/json; charset=utf-8")
        if status == 503 || status == 504, headers[.retryAfter] == nil { headers[.retryAfter] = "5" }
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
