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

    static let typeBase = "https://superapp-gateway.dev/problems/"

    static func make(_ problem: GatewayProblem) -> Response {
        let body = Body(
            type: typeBase + problem.code.replacingOccurrences(of: "_", with: "-"),
            title: problem.title,
            status: problem.status,
            detail: problem.detail,
            code: problem.code,
            instance: RequestScope.current.map { "urn:request:" + $0.requestID }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = (try? encoder.encode(body)) ?? Data(#"{"code":"internal_error","status":500,"title":"Internal error","type":"about:blank"}"#.utf8)
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        for header in problem.headers {
            if let name = HTTPField.Name(header.name) { headers[name] = header.value }
        }
        return Response(
            status: HTTPResponse.Status(code: problem.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
