import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird

/// Serializes a ``GatewayProblem`` as `application/problem+json`.
enum ProblemResponse {
    private struct Body: Encodable {
        let type: String
        let title: String
        let status: Int
        let detail: String?
        let code: String
        let instance: String?
    }

    /// The standard members plus `members` (standard ones win on a name clash).
    private static func encode(_ body: Body, members: [String: JSONValue], encoder: JSONEncoder) throws -> Data {
        guard !members.isEmpty else { return try encoder.encode(body) }
        let standard = try JSONDecoder().decode([String: JSONValue].self, from: try encoder.encode(body))
        return try encoder.encode(members.merging(standard) { _, standard in standard })
    }

    static let typeBase = "https://superapp-gateway.dev/problems/"

    /// - Parameter requestID: named in `instance` as `urn:request:{id}` (none when empty).
    static func make(_ problem: GatewayProblem, requestID: String) -> Response {
        let body = Body(
            type: typeBase + problem.code.replacingOccurrences(of: "_", with: "-"),
            title: problem.title,
            status: problem.status,
            detail: problem.detail,
            code: problem.code,
            instance: requestID.isEmpty ? nil : "urn:request:" + requestID
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes =
            (try? encode(body, members: problem.members, encoder: encoder))
            ?? Data(#"{"code":"internal_error","status":500,"title":"Internal error","type":"about:blank"}"#.utf8)
        let headers = problem.responseFields(contentType: "application/problem+json")
        return Response(
            status: HTTPResponse.Status(code: problem.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
