import Foundation
import GatewayCore
@testable import GatewayServer
import HTTPTypes
import Testing

/// Request bodies are bounded per route before they are read; the OAuth endpoints answer
/// every error, parse errors and oversize bodies included, as RFC 6749 JSON.
@Suite("Request bodies: per-route limits, 413 without reading the rest; OAuth errors are RFC 6749 JSON")
struct BodyLimitTests {
    @Test(
        "a declared 100 MB form to the token endpoint is refused at once (RFC 6749 JSON 413) and the connection closed")
    func declaredTooLarge() async throws {
        try await GatewayHarness.withGateway(useRedis: false) { _, _, port in
            let connection = try await RawConnection.connect(port: port)
            let started = ContinuousClock.now
            try await connection.send(
                "POST /t/demo/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000000\r\n\r\n"
            )
            try? await connection.send(String(repeating: "grant_type=refresh_token&", count: 400))
            #expect(
                await connection.received("\"error\":\"invalid_request\"", within: .seconds(3)), "\(connection.text)")
            #expect(connection.text.hasPrefix("HTTP/1.1 413"))
            #expect(connection.text.contains("application/json"))
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(await connection.closed(within: .seconds(3)))
        }
    }

    @Test("a chunked body is cut off as soon as it passes the limit")
    func chunkedTooLarge() async throws {
        try await GatewayHarness.withGateway(useRedis: false) { _, _, port in
            let connection = try await RawConnection.connect(port: port)
            try await connection.send(
                "POST /t/demo/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            let chunk = String(repeating: "a", count: 4096)
            for _ in 0..<4 { try? await connection.send(String(4096, radix: 16) + "\r\n" + chunk + "\r\n") }
            #expect(await connection.received("HTTP/1.1 413", within: .seconds(3)), "\(connection.text)")
            #expect(connection.text.contains("\"error\":\"invalid_request\""))
            #expect(await connection.closed(within: .seconds(3)))
        }
    }

    @Test(
        "an analytics batch over its limit is 413 payload_too_large; a storage write sized by the tenant's cap is not cut at the JSON limit"
    )
    func routeLimits() async throws {
        let limits = BodyLimits(form: 8 << 10, analytics: 32 << 10, json: 16 << 10)
        try await GatewayHarness.withGateway(bodyLimits: limits) { harness, _, port in
            let id = uniqueTenantID("body")
            try await harness.createTenant(Tenant(id: id, displayName: "Body"))
            let token = try await harness.users.accessToken(tenant: id)
            let auth = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
            let events = String(
                repeating: #"{"type":"mini_app_open","miniAppId":"hello","occurredAt":"2026-01-01T00:00:00Z"},"#,
                count: 600)
            // Over a raw socket: the gateway answers 413 and closes without reading the rest, and an
            // HTTP client still writing the body may see the closed socket before the answer.
            let big = try await Self.oversized(
                "POST", "/t/\(id)/v1/analytics", port: port, headers: auth, body: "{\"events\":[\(events.dropLast())]}")
            #expect(big.hasPrefix("HTTP/1.1 413"), "\(big.prefix(300))")
            #expect(big.contains("payload_too_large"))
            #expect(big.lowercased().contains("content-type: application/problem+json"))

            // 100 KB value, well under the tenant's 2 MB cap and over the 16 KB JSON limit.
            let value = String(repeating: "v", count: 100_000)
            let put = try await RawHTTP.send(
                .PUT, "http://127.0.0.1:\(port)/t/\(id)/v1/me/miniapps/hello/storage", headers: auth,
                body: Array(#"{"items":{"k":"\#(value)"}}"#.utf8))
            #expect(
                put.status != 413 || !put.body.contains("payload_too_large"), "\(put.status) \(put.body.prefix(200))")
            // The same body to a JSON route is refused.
            let permissions = try await Self.oversized(
                "PUT", "/t/\(id)/v1/me/miniapps/hello/permissions", port: port, headers: auth,
                body: #"{"permissions":[],"pad":"\#(value)"}"#)
            #expect(permissions.hasPrefix("HTTP/1.1 413"), "\(permissions.prefix(300))")
        }
    }

    /// Sends a request whose body is over a limit on a raw connection (ignoring a write the
    /// gateway cut off) and returns what came back once the 413 arrived.
    static func oversized(
        _ method: String, _ path: String, port: Int, headers: [(String, String)], body: String
    ) async throws -> String {
        let connection = try await RawConnection.connect(port: port)
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined()
            + "Content-Length: \(body.utf8.count)\r\n\r\n"
        try await connection.send(head)
        try? await connection.send(body)
        _ = await connection.received("payload_too_large", within: .seconds(3))
        let text = connection.text
        await connection.close()
        return text
    }

    @Test("OAuth endpoints answer parse errors, unknown tenants and wrong methods as RFC 6749 JSON, never problem+json")
    func oauthErrorsAreRFC6749() async throws {
        try await GatewayHarness.withGateway(useRedis: false) { _, _, port in
            let base = "http://127.0.0.1:\(port)"
            let form = [("Content-Type", "application/x-www-form-urlencoded")]
            let cases: [(String, String, [(String, String)], String?)] = [
                ("/t/demo/oauth2/token", "POST", form, "grant_type=refresh_token&grant_type=authorization_code"),
                (
                    "/t/demo/oauth2/token", "POST", [("Content-Type", "application/json")],
                    #"{"grant_type":"refresh_token"}"#
                ),
                ("/t/demo/oauth2/token", "POST", form, "grant_type=%ZZ"),
                ("/t/demo/oauth2/revoke", "POST", form, "token=a&token=b"),
                ("/t/demo/oauth2/introspect", "POST", form, "token=a&token=b"),
                ("/t/demo/oauth2/par", "POST", form, "client_id=a&client_id=b"),
                ("/t/no-such-tenant/oauth2/token", "POST", form, "grant_type=refresh_token"),
                ("/t/demo/oauth2/token", "GET", [], nil),
            ]
            for (path, method, headers, body) in cases {
                let answer = try await RawHTTP.send(
                    .init(rawValue: method), base + path, headers: headers, body: body.map { Array($0.utf8) })
                #expect((400..<500).contains(answer.status), "\(method) \(path) \(body ?? ""): \(answer.status)")
                #expect(
                    answer.headers.first(name: "Content-Type")?.hasPrefix("application/json") == true,
                    "\(method) \(path) \(body ?? ""): \(answer.headers)")
                let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
                #expect(json?["error"] is String, "\(method) \(path) \(body ?? ""): \(answer.body)")
                #expect(json?["code"] == nil)
            }
        }
    }

    @Test("route limits: forms, analytics, JSON, and storage writes sized by the tenant's cap")
    func limitTable() {
        let limits = BodyLimits()
        let operations = OperationTable()
        func maximum(_ method: HTTPRequest.Method, _ path: String, tenant: Tenant? = nil) -> Int {
            limits.maximum(for: operations.match(method: method, path: path).facts.body, tenant: tenant)
        }
        #expect(maximum(.post, "/t/acme/oauth2/token") == 8 << 10)
        #expect(maximum(.post, "/t/acme/oauth2/nowhere") == 8 << 10)
        #expect(maximum(.post, "/t/acme/v1/analytics") == 512 << 10)
        #expect(maximum(.put, "/t/acme/v1/me/miniapps/x/permissions") == 64 << 10)
        let tenant = Tenant(id: "acme", displayName: "Acme", storageMaxSizeInBytes: 5_000_000)
        #expect(maximum(.put, "/t/acme/v1/me/miniapps/x/storage", tenant: tenant) == 5_000_000 + (64 << 10))
        #expect(
            maximum(.put, "/t/acme/v1/me/miniapps/x/storage") == Int(Tenant.defaultStorageMaxSizeInBytes) + (64 << 10))
        #expect(maximum(.delete, "/t/acme/v1/me/miniapps/x/storage") == 64 << 10)
        #expect(maximum(.get, "/healthz") == 64 << 10)
    }

    @Test(
        "a body over its route's limit from a client that keeps sending gets a readable 413 problem, never a reset",
        arguments: [
            ("PUT", "storage", 3_000_000, false), ("PUT", "storage", 3_000_000, true),
            ("POST", "access-token", 200_000, false), ("POST", "access-token", 200_000, true),
        ])
    func answerArrives(method: String, route: String, size: Int, chunked: Bool) async throws {
        try await GatewayHarness.withGateway(useRedis: false) { harness, _, port in
            let id = uniqueTenantID("linger")
            try await harness.createTenant(Tenant(id: id, displayName: "Linger"))
            let token = try await harness.users.accessToken(tenant: id)
            let path =
                route == "storage" ? "/t/\(id)/v1/me/miniapps/hello/storage" : "/t/\(id)/v1/miniapps/hello/access-token"
            let framing = chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(size)\r\n"
            let connection = try await RawConnection.connect(port: port)
            try await connection.send(
                "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n\(framing)\r\n"
            )
            // Keeps sending the whole body, as a client that does not read while writing does.
            let piece = Array(String(repeating: "x", count: 16_384).utf8)
            var sent = 0
            while sent < size, connection.isOpen {
                let chunk = chunked ? Array("4000\r\n".utf8) + piece + Array("\r\n".utf8) : piece
                do { try await connection.send(chunk) } catch { break }
                sent += piece.count
            }
            #expect(
                await connection.received("payload_too_large", within: .seconds(5)),
                "\(route) chunked=\(chunked): \(connection.text.prefix(300))")
            #expect(connection.text.hasPrefix("HTTP/1.1 413"), "\(connection.text.prefix(200))")
            #expect(connection.text.lowercased().contains("content-type: application/problem+json"))
            #expect(await connection.closed(within: .seconds(5)))
        }
    }
}
