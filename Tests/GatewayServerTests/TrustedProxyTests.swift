import Foundation
import GatewayCore
@testable import GatewayServer
import Testing

/// The deployment we ship: behind nginx (or an L4 balancer speaking the PROXY protocol),
/// the sign-in throttle, the access log and the caps see the real client; nobody else can
/// claim to be someone else.
@Suite("Behind a load balancer: trusted proxies name the client, nobody else can")
struct TrustedProxyTests {
    static let loopbackProxy = ProxySettings(trustedProxies: try! TrustedProxies(parsing: "127.0.0.1/32"))

    /// A native sign-in form for the kit's client and user with `password`.
    static func form(_ kit: OAuthTestKit, password: String) -> String {
        "response_type=code&client_id=\(kit.clientID)&redirect_uri=com.example.app%3A%2Fcallback&scope=openid&state=s"
            + "&code_challenge=\(OAuthTestKit.challenge)&code_challenge_method=S256&username=\(kit.username)&password=\(password)"
    }

    static let formHeaders = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]

    @Test(
        "behind the shipped nginx config: 30 wrong passwords from one client do not hold back alice at another; a direct client's X-Forwarded-For changes nothing",
        .enabled(if: NginxProcess.isAvailable))
    func signInThrottleBehindNginx() async throws {
        let log = RecordedLog()
        try await GatewayHarness.withGateway(
            useRedis: false, proxies: Self.loopbackProxy, accessLog: true, logger: log.logger()
        ) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let nginx = try await NginxProcess.startShipped(
                upstreams: ["http://127.0.0.1:\(port)"], folder: harness.folder)
            defer { nginx.stop() }
            let authorize = "\(nginx.base)/t/demo/oauth2/authorize"
            var statuses: [Int: Int] = [:]
            for _ in 0..<30 {
                let answer = try await ClusterTests.request(
                    authorize, method: "POST", headers: Self.formHeaders + [("X-Forwarded-For", "198.51.100.7")],
                    body: Self.form(kit, password: "wrong"))
                statuses[answer.status, default: 0] += 1
            }
            // The attacker's own pair is held back...
            #expect(statuses[401] == 5 && statuses[429] == 25, "\(statuses)")
            // ...alice elsewhere signs in at once.
            let started = ContinuousClock.now
            let alice = try await ClusterTests.request(
                authorize, method: "POST", headers: Self.formHeaders + [("X-Forwarded-For", "203.0.113.9")],
                body: Self.form(kit, password: "correct%20horse%20battery"))
            #expect(alice.status == 200, "\(alice.status) \(alice.body.prefix(200))")
            #expect(ContinuousClock.now - started < .seconds(1))
            #expect(
                log.all.contains {
                    $0.contains("client=198.51.100.7") && $0.contains("route=/t/{tenant}/oauth2/authorize")
                }, "\(log.all.suffix(3))")

            // Straight to the gateway from 127.0.0.2 (not a trusted proxy): the header is ignored,
            // so a fresh X-Forwarded-For per attempt does not escape the throttle.
            var direct: [Int] = []
            for attempt in 0..<7 {
                direct.append(
                    try await Self.rawPost(
                        port: port, from: "127.0.0.2", path: "/t/demo/oauth2/authorize",
                        headers: Self.formHeaders + [("X-Forwarded-For", "192.0.2.\(attempt + 1)")],
                        body: Self.form(kit, password: attempt == 6 ? "correct%20horse%20battery" : "wrong")))
            }
            #expect(direct == [401, 401, 401, 401, 401, 429, 429], "\(direct)")
            #expect(log.all.contains { $0.contains("client=127.0.0.2") })
            #expect(!log.all.contains { $0.contains("client=192.0.2.") })
        }
    }

    @Test(
        "PROXY protocol from a trusted balancer names the client; from others it is refused; garbage falls back to the peer"
    )
    func proxyProtocol() async throws {
        let log = RecordedLog()
        var settings = Self.loopbackProxy
        settings.proxyProtocol = true
        try await GatewayHarness.withGateway(
            useRedis: false, connectionLimits: .init(maxConnectionsPerAddress: 2), proxies: settings, accessLog: true,
            logger: log.logger()
        ) { _, _, port in
            let get = "GET /healthz HTTP/1.1\r\nHost: gw\r\nX-Forwarded-For: 192.0.2.99\r\n\r\n"
            func exchange(_ preface: [UInt8], from source: String = "127.0.0.1") async throws -> RawConnection {
                let connection = try await RawConnection.connect(port: port, from: source)
                try await connection.send(preface + Array(get.utf8))
                _ = await connection.received("HTTP/1.1 ", within: .seconds(3))
                return connection
            }
            let v1 = try await exchange(Array("PROXY TCP4 198.51.100.7 127.0.0.1 50000 8080\r\n".utf8))
            #expect(v1.text.hasPrefix("HTTP/1.1 200"), "\(v1.text.prefix(100))")
            let v2 = try await exchange(
                ProxyProtocolHeaderTests.v2(block: [203, 0, 113, 9, 127, 0, 0, 1, 0xC3, 0x50, 0x1F, 0x90]))
            #expect(v2.text.hasPrefix("HTTP/1.1 200"))
            // The client it names is held to its connection cap (2): a third is closed.
            let second = try await exchange(Array("PROXY TCP4 198.51.100.7 127.0.0.1 50001 8080\r\n".utf8))
            #expect(second.text.hasPrefix("HTTP/1.1 200"))
            let third = try await RawConnection.connect(port: port)
            try await third.send("PROXY TCP4 198.51.100.7 127.0.0.1 50002 8080\r\n")
            #expect(await third.closed(within: .seconds(2)))
            // An untrusted peer's PROXY line is not HTTP.
            let spoof = try await exchange(Array("PROXY TCP4 203.0.113.77 127.0.0.1 1 2\r\n".utf8), from: "127.0.0.2")
            #expect(spoof.text.hasPrefix("HTTP/1.1 400"), "\(spoof.text.prefix(100))")
            // A malformed header that can be skipped, and none at all: the peer is the client.
            let garbage = try await exchange(Array("PROXY TCP4 not-an-address 127.0.0.1 1 2\r\n".utf8))
            #expect(garbage.text.hasPrefix("HTTP/1.1 200"))
            let plain = try await exchange([])
            #expect(plain.text.hasPrefix("HTTP/1.1 200"))
            // Framing lost: closed.
            let lost = try await RawConnection.connect(port: port)
            try await lost.send(ProxyProtocolHeaderTests.v2(command: 0x31, block: []))
            #expect(await lost.closed(within: .seconds(2)))

            // A PROXY-named client is no trusted proxy: its X-Forwarded-For is ignored. Without a usable
            // header the peer (127.0.0.1) is trusted, so its X-Forwarded-For names the client.
            let clients = log.all.filter { $0.contains("route=/healthz") }.compactMap {
                $0.split(separator: " ").first { $0.hasPrefix("client=") }
            }
            #expect(
                clients.sorted() == [
                    "client=192.0.2.99", "client=192.0.2.99", "client=198.51.100.7", "client=198.51.100.7",
                    "client=203.0.113.9",
                ], "\(clients)")
            let metrics = try await RawHTTP.send(.GET, "http://127.0.0.1:\(port)/metrics").body
            for sample in [
                "gateway_proxy_protocol_headers_total{outcome=\"accepted\"} 4",
                "gateway_proxy_protocol_headers_total{outcome=\"invalid\"} 2",
                "gateway_proxy_protocol_headers_total{outcome=\"absent\"} 2",
                "gateway_http_connections_refused_total{reason=\"per_address\"} 1",
            ] {
                #expect(
                    metrics.contains(sample),
                    "\(sample): \(metrics.split(separator: "\n").filter { $0.contains("proxy_protocol") || $0.contains("refused") })"
                )
            }
            for connection in [v1, v2, second, third, spoof, garbage, plain, lost] { await connection.close() }
        }
    }

    /// A POST on a raw connection from `source`; the answer's status.
    static func rawPost(
        port: Int, from source: String, path: String, headers: [(String, String)], body: String
    ) async throws -> Int {
        let connection = try await RawConnection.connect(port: port, from: source)
        defer { Task { await connection.close() } }
        let head =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + headers.map { "\($0.0): \($0.1)\r\n" }.joined()
            + "Content-Length: \(body.utf8.count)\r\n\r\n"
        try await connection.send(head + body)
        _ = await connection.received("\r\n", within: .seconds(10))
        let status = connection.text.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return try #require(status, "no status line: \(connection.text.prefix(100))")
    }
}
