import AsyncHTTPClient
import Foundation
import GatewayCore
@testable import GatewayServer
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// `StoredAnswerMiddleware` serves the hot reads ahead of the router; the generated
/// handlers answer the same operations when it is off. Both must agree exactly.
@Suite("Stored answers: the fast path answers like the generated handlers")
struct StoredAnswerParityTests {
    static let nearLifetime = StoredAnswerFastPathTests.nearLifetime

    struct Answer: Equatable {
        var status: Int
        var etag: String?
        var contentType: String?
        var body: JSONValue?
        var problemCode: String?
        /// Every header: its value, except `Date` and `X-Request-Id` (present or not).
        var headers: [String: String]
    }

    static func fetch(_ url: String, token: String, ifNoneMatch: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let ifNoneMatch { request.headers.add(name: "If-None-Match", value: ifNoneMatch) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let body = bytes.readableBytes == 0 ? nil : try JSONValue.decode(Data(buffer: bytes))
        let contentType = response.headers.first(name: "Content-Type")
        let isProblem = contentType?.hasPrefix("application/problem+json") == true
        return Answer(
            status: Int(response.status.code), etag: response.headers.first(name: "ETag"),
            contentType: isProblem ? "problem" : contentType?.split(separator: ";").first.map(String.init),
            body: isProblem ? nil : body, problemCode: isProblem ? body?.objectValue?["code"]?.stringValue : nil,
            headers: Dictionary(
                response.headers.map { header in
                    let name = header.name.lowercased()
                    return (name, ["date", "x-request-id"].contains(name) ? "present" : header.value)
                }, uniquingKeysWith: { first, _ in first })
        )
    }

    /// Serves `responder` on a free port (the full path, without the event-loop fast path).
    static func serve<R: HTTPResponder<GatewayRequestContext>>(
        _ responder: R, _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        var logger = Logger(label: "parity")
        logger.logLevel = .critical
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: GatewayApplication.serverName),
            logger: logger)
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }

    @Test(
        "manifest, mini app, bundle, 304, bad ids and unknown apps: the event loop's answers, the stored-answer middleware's and the generated handlers' agree on status, headers and JSON"
    )
    func parity() async throws {
        try await StoredAnswerFastPathTests.withHelloTenant("parity") { harness, _, port, id in
            let token = try await harness.users.accessToken(tenant: id)
            let services = harness.bootstrap.services
            // The replica serves hits on the event loop once its revocation mirror is in sync.
            #expect(
                try await StoredAnswerFastPathTests.servedFast(
                    harness, "http://127.0.0.1:\(port)/t/\(id)/v1/miniapps/alpha", token: token))
            let fastBefore = StoredAnswerFastPathTests.fastAnswers(harness)
            try await Self.serve(try GatewayApplication.makeResponder(services: services, storedAnswers: false)) {
                generatedPort in
                try await Self.serve(try GatewayApplication.makeResponder(services: services)) { middlewarePort in
                    let paths = [
                        "/t/\(id)/v1/miniapps/hello/versions/v1/manifest",
                        "/t/\(id)/v1/miniapps/hello/versions/v1/manifest?lang=ja",
                        "/t/\(id)/v1/miniapps/hello", "/t/\(id)/v1/miniapps/hello/versions/v1/bundle",
                        "/t/\(id)/v1/miniapps/nope/versions/v1/manifest", "/t/\(id)/v1/miniapps/bad%20id",
                        "/t/\(id)/v1/miniapps/hello/versions/v1/manifest?lang=not%20a%20tag",
                    ]
                    for path in paths {
                        // The first read fills the answer cache; the second is a fast-path hit.
                        let filled = try await Self.fetch("http://127.0.0.1:\(port)\(path)", token: token)
                        let fast = try await Self.fetch("http://127.0.0.1:\(port)\(path)", token: token)
                        let middleware = try await Self.fetch(
                            "http://127.0.0.1:\(middlewarePort)\(path)", token: token)
                        let typed = try await Self.fetch("http://127.0.0.1:\(generatedPort)\(path)", token: token)
                        #expect(filled == typed, "\(path)")
                        #expect(fast == typed, "\(path) (event loop)")
                        #expect(middleware == typed, "\(path) (stored-answer middleware)")
                        guard let etag = fast.etag else { continue }
                        var revalidated: [Answer] = []
                        for each in [port, middlewarePort, generatedPort] {
                            revalidated.append(try await Self.fetch(
                                "http://127.0.0.1:\(each)\(path)", token: token, ifNoneMatch: etag))
                        }
                        #expect(revalidated[0].status == 304)
                        #expect(revalidated[0] == revalidated[2], "\(path) revalidated (event loop)")
                        #expect(revalidated[1] == revalidated[2], "\(path) revalidated (middleware)")
                    }
                }
            }
            // Four answers (manifest twice, info, bundle), each read again and revalidated.
            #expect(StoredAnswerFastPathTests.fastAnswers(harness) - fastBefore >= 4, "the fast path answered")
        }
    }
}
