import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
@testable import GatewayServer
import Testing

/// The event-loop fast path (``StoredAnswerFastPath``): it answers only what the full path
/// would answer the same way, and never out of order.
@Suite("Stored answers on the event loop")
struct StoredAnswerFastPathTests {
    /// Long enough that a loaded machine never sees a held answer expire between two reads.
    static let nearLifetime = Duration.seconds(120)

    /// Runs `body` with a gateway (answers held in process for ``nearLifetime``), its
    /// generated client, its port, and a new tenant (id prefixed `prefix`) on a fake platform
    /// serving `hello`.
    static func withHelloTenant(
        _ prefix: String, _ body: @Sendable (GatewayHarness, Client, Int, String) async throws -> Void
    ) async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(nearCacheLifetime: nearLifetime) { harness, client, port in
                let id = uniqueTenantID(prefix)
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                try await body(harness, client, port, id)
            }
        }
    }

    /// Stored answers the fast path has written so far.
    static func fastAnswers(_ harness: GatewayHarness) -> Int {
        let text = harness.bootstrap.services.metrics.exposition()
        let line = text.split(separator: "\n").first { $0.hasPrefix("gateway_http_fast_path_answers_total") }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Int(Double($0) ?? -1) } ?? 0
    }

    /// Reads `url` until the fast path answers a read (the answer is held and the replica's
    /// revocation mirror is in sync: a gateway just started on a loaded machine may take a
    /// while); whether it did within 10 s.
    static func servedFast(_ harness: GatewayHarness, _ url: String, token: String) async throws -> Bool {
        try await eventually(within: .seconds(10), every: .milliseconds(50)) {
            let before = fastAnswers(harness)
            return try await get(url, token: token).status == .ok && fastAnswers(harness) > before
        }
    }

    static func get(_ url: String, token: String, requestID: String? = nil) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let requestID { request.headers.add(name: "X-Request-Id", value: requestID) }
        let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response
    }

    @Test("a token revoked after the fast path served it is refused at once, by the full path")
    func revokedToken() async throws {
        try await Self.withHelloTenant("fastrevoke") { harness, plain, port, id in
            var kit = OAuthTestKit(harness: harness, client: plain, port: port)
            kit.tenant = id
            kit.clientID = "revoking-app"
            try await kit.setUp()
            let token = try await kit.tokens().accessToken
            let url = "http://127.0.0.1:\(port)/t/\(id)/v1/miniapps/hello/versions/v1/manifest"
            #expect(try await Self.servedFast(harness, url, token: token), "a read is a fast-path answer")
            let before = Self.fastAnswers(harness)
            _ = try await plain.revokeToken(
                path: .init(tenant: id), body: .urlEncodedForm(.init(token: token, clientId: kit.clientID))
            ).ok
            let refused = try await Self.get(url, token: token)
            #expect(refused.status == .unauthorized)
            #expect(refused.headers.first(name: "WWW-Authenticate")?.contains("invalid_token") == true)
            #expect(Self.fastAnswers(harness) == before)
        }
    }

    @Test("pipelined requests: one the full path answers, then a cache hit — answers in request order")
    func pipelinedOrder() async throws {
        try await Self.withHelloTenant("fastorder") { harness, _, port, id in
            let token = try await harness.users.accessToken(tenant: id)
            let path = "/t/\(id)/v1/miniapps/hello/versions/v1/manifest"
            #expect(try await Self.servedFast(harness, "http://127.0.0.1:\(port)\(path)", token: token))
            let before = Self.fastAnswers(harness)
            let connection = try await RawConnection.connect(port: port)
            // The first goes to the router (host-config is not a stored answer); the second
            // is a cache hit the fast path could write at once.
            try await connection.send(
                "GET /t/\(id)/v1/host-config HTTP/1.1\r\nHost: x\r\nX-Request-Id: first-one\r\n\r\n"
                    + "GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                    + "X-Request-Id: second-one\r\n\r\n")
            #expect(await connection.received("second-one", within: .seconds(10)))
            #expect(await connection.received("first-one", within: .seconds(10)))
            let text = connection.text
            let first = try #require(text.range(of: "first-one")), second = try #require(text.range(of: "second-one"))
            #expect(first.lowerBound < second.lowerBound, "answers in the order of the requests")
            // Once the router's answers have ended (the last part may reach the handler after
            // the client read the head), hits on the connection are the fast path's again.
            var servedAgain = false
            for round in 1...20 where !servedAgain {
                try await connection.send(
                    "GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nX-Request-Id: again-\(round)\r\n\r\n")
                #expect(await connection.received("again-\(round)", within: .seconds(10)))
                servedAgain = Self.fastAnswers(harness) > before
            }
            #expect(servedAgain)
            await connection.close()
        }
    }

    @Test("the Date header is an IMF-fixdate, as Foundation formats it")
    func dateHeader() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for seconds in [0, 951_782_400, 1_795_000_000, 1_798_761_599, 4_102_444_800] {
            #expect(
                HTTPDateHeader.format(seconds) == formatter.string(from: Date(timeIntervalSince1970: Double(seconds))))
        }
        let before = time(nil), current = HTTPDateHeader().current(), after = time(nil)
        #expect([before, after].map(HTTPDateHeader.format).contains(current))
    }
}
