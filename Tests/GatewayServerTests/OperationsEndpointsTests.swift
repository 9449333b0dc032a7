import AsyncHTTPClient
import Foundation
import GatewayAPI
@testable import GatewayServer
import NIOCore
import Testing

@Suite("Operations endpoints")
struct OperationsEndpointsTests {
    @Test("healthz, readyz (SQLite + Redis when configured) and metrics")
    func probesAndMetrics() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            #expect(try await client.getHealth().ok.body.json.status == .ok)

            let readiness = try await client.getReadiness().ok.body.json
            #expect(readiness.status == .ready)
            let names = readiness.checks.map(\.name)
            #expect(names.contains("sqlite"))
            #expect(names.contains("redis") == (harness.configuration.redisURL != nil))

            _ = try await client.getHostConfig(path: .init(tenant: "demo"))
            _ = try await client.getHostConfig(path: .init(tenant: "nobody-here"))
            let text = try await client.getMetrics().ok.body.plainText
            let metrics = try await String(collecting: text, upTo: 1 << 20)
            #expect(
                metrics.contains(
                    #"gateway_http_requests_total{route="/t/{tenant}/v1/host-config",method="GET",status="200"}"#)
                    || metrics.contains(#"route="/t/:tenant/v1/host-config""#))
            #expect(metrics.contains("status=\"404\""))
            #expect(metrics.contains("gateway_http_request_duration_seconds_bucket"))
            #expect(!metrics.contains("nobody-here"), "raw paths must not become labels")
            // Per tenant, for tenants that exist only.
            #expect(metrics.contains(#"gateway_tenant_requests_total{tenant="demo",class="2xx"} 1"#))
            if harness.configuration.redisURL != nil { #expect(metrics.contains("gateway_redis_connections ")) }

            // Unready (here: draining) is a problem document naming the failing check.
            harness.bootstrap.drain.start()
            let unready = try await client.getReadiness().serviceUnavailable.body.applicationProblemJson
            #expect(
                unready.code == "not_ready" && unready.status == 503 && unready.detail == "Failing checks: draining.")
            #expect(unready.checks?.first { $0.name == "draining" }?.ok == false)
            #expect(unready.checks?.contains { $0.name == "sqlite" && $0.ok } == true)
        }
    }

    @Test("X-Request-Id is honoured when well-formed, replaced otherwise, and named in problems")
    func requestIDs() async throws {
        try await GatewayHarness.withGateway { _, _, port in
            let http = HTTPClient.shared
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/t/nobody-here/v1/host-config")
            request.headers.add(name: "X-Request-Id", value: "abc-123")
            let response = try await http.execute(request, timeout: .seconds(5))
            #expect(response.headers.first(name: "X-Request-Id") == "abc-123")
            #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
            let body = try await response.body.collect(upTo: 1 << 16)
            #expect(String(buffer: body).contains("urn:request:abc-123"))

            var hostile = HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz")
            hostile.headers.add(name: "X-Request-Id", value: "evil id with spaces")
            let replaced = try await http.execute(hostile, timeout: .seconds(5))
            let id = try #require(replaced.headers.first(name: "X-Request-Id"))
            #expect(id != "evil id with spaces")
            #expect(id.count == 32)
            // Generated ids: 32 hex digits, a different one per request.
            let again = try await http.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5))
            let other = try #require(again.headers.first(name: "X-Request-Id"))
            #expect(other != id)
            #expect(other.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
    }

    @Test("unknown routes and methods are problem+json, not bare errors")
    func unknownRoutes() async throws {
        try await GatewayHarness.withGateway { _, _, port in
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/nowhere"), timeout: .seconds(5))
            #expect(response.status == .notFound)
            #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
            let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
            #expect(body.contains(#""code":"not_found""#))

            var post = HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz")
            post.method = .DELETE
            let wrongMethod = try await HTTPClient.shared.execute(post, timeout: .seconds(5))
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers.first(name: "Allow")?.contains("GET") == true)
            #expect(wrongMethod.headers.first(name: "Content-Type") == "application/problem+json")
        }
    }
}

@Suite("Replica label on metrics")
struct ReplicaLabelTests {
    @Test func everySampleGetsTheReplicaLabelFirst() {
        let text = """
        # HELP a_total A.
        # TYPE a_total counter
        a_total{route="/x",status="200"} 3
        b 1.5
        c{} 2

        """
        #expect(GatewayMetrics.labelling(text, replica: "gw-1") == """
        # HELP a_total A.
        # TYPE a_total counter
        a_total{replica="gw-1",route="/x",status="200"} 3
        b{replica="gw-1"} 1.5
        c{replica="gw-1"} 2

        """)
    }
}
