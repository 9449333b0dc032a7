import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird

/// Serializes a ``GatewayProblem`` as `application/problem+json`: `type`, `title`, `status`,
/// `detail`, `code` and `instance` (`urn:request:{id}`), plus the problem's own members.
enum ProblemResponse {
    static let typeBase = "https://superapp-gateway.dev/problems/"

    /// - Parameter requestID: named in `instance` as `urn:request:{id}` (none when empty).
    static func make(_ problem: GatewayProblem, requestID: String) -> Response {
        // Standard members win on a name clash. Written as one JSONValue (JSONValueWriter): the
        // same bytes JSONEncoder gave, without its encode-decode-encode round for extra members.
        var standard: [String: JSONValue] = [
            "type": .string(typeBase + problem.code.replacingOccurrences(of: "_", with: "-")),
            "title": .string(problem.title), "status": .number(Double(problem.status)), "code": .string(problem.code),
        ]
        if let detail = problem.detail { standard["detail"] = .string(detail) }
        if !requestID.isEmpty { standard["instance"] = .string("urn:request:" + requestID) }
        let bytes =
            (try? JSONValue.object(problem.members.merging(standard) { _, standard in standard }).encoded())
            ?? Data(#"{"code":"internal_error","status":500,"title":"Internal error","type":"about:blank"}"#.utf8)
        let headers = problem.responseFields(contentType: "application/problem+json")
        return Response(
            status: HTTPResponse.Status(code: problem.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
