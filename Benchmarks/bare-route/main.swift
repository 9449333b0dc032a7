import Foundation
import Hummingbird

// A bare Hummingbird route returning fixed bytes (the same bytes as the gateway's cached
// manifest answer), the baseline of `make bench`. Usage: bare-route PORT BODY_FILE
let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8090 : 8090
let body = arguments.count > 2 ? (FileManager.default.contents(atPath: arguments[2]) ?? Data()) : Data("{}".utf8)
let bytes = ByteBuffer(bytes: body)
let router = Router()
router.get("/bare") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: bytes))
}
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "bare-route"))
try await app.runService()
