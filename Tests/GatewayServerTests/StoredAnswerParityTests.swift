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
    struct Answer: Equatable {
        var status: Int
        var etag: String?
        var contentType: String?
        var body: JSONValue?
        var problemCode: String?
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
            body: isProblem ? nil : body, problemCode: isProblem ? body?.objectValue?["code"]?.stringValue : nil
        )
    }

    @Test("manifest, mini app, bundle, 304, bad ids and unknown apps: same status, ETag, type and JSON")
    func parity() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("parity")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let token = try await harness.users.accessToken(tenant: id)
                var logger = Logger(label: "parity")
                logger.logLevel = .critical
                let generated = Application(
                    responder: try GatewayApplication.makeResponder(
                        services: harness.bootstrap.services, storedAnswers: false),
                    configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger
                )
                try await generated.test(.live) { generatedClient in
                    let plainPort = try #require(generatedClient.port)
                    let paths = [
                        "/t/\(id)/v1/miniapps/hello/versions/v1/manifest",
                        "/t/\(id)/v1/miniapps/hello/versions/v1/manifest?lang=ja",
                        "/t/\(id)/v1/miniapps/hello", "/t/\(id)/v1/miniapps/hello/versions/v1/bundle",
                        "/t/\(id)/v1/miniapps/nope/versions/v1/manifest", "/t/\(id)/v1/miniapps/bad%20id",
                        "/t/\(id)/v1/miniapps/hello/versions/v1/manifest?lang=not%20a%20tag",
                    ]
                    for path in paths {
                        let fast = try await Self.fetch("http://127.0.0.1:\(port)\(path)", token: token)
                        let typed = try await Self.fetch("http://127.0.0.1:\(plainPort)\(path)", token: token)
                        #expect(fast == typed, "\(path)")
                        if let etag = fast.etag {
                            let fastRevalidated = try await Self.fetch(
                                "http://127.0.0.1:\(port)\(path)", token: token, ifNoneMatch: etag)
                            let typedRevalidated = try await Self.fetch(
                                "http://127.0.0.1:\(plainPort)\(path)", token: token, ifNoneMatch: etag)
                            #expect(fastRevalidated.status == 304)
                            #expect(fastRevalidated == typedRevalidated, "\(path) revalidated")
                        }
                    }
                }
            }
        }
    }
}
