import Foundation
import Hummingbird

// A bare Hummingbird route returning fixed bytes (the same bytes as the gateway's cached
// manifest answer), the baseline of `make bench`; and POST /refuse, which reads a form body
// of up to 16 KiB and answers 400 with an RFC 6749 error: the floor under the token
// endpoint's refusal of an 8 KiB form. Usage: bare-route PORT BODY_FILE
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8090 : 8090
let body = arguments.count > 2 ? (FileManager.default.contents(atPath: arguments[2]) ?? Data()) : Data("{}".utf8)
let bytes = ByteBuffer(bytes: body)
let router = Router()
router.get("/bare") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
}
let refusal = ByteBuffer(string: #"{"error":"invalid_grant","error_description":"refresh token is invalid"}"#)
router.post("/refuse") { request, _ in
    _ = try await request.body.collect(upTo: 16_384)
    return Response(
        status: .badRequest, headers: [.contentType: "application/json", .cacheControl: "no-store"],
        body: .init(byteBuffer: refusal))
}
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "bare-route"))
try await app.runService()
