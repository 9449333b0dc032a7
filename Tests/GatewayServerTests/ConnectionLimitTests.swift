import Foundation
import GatewayServer
import Testing

/// Connection deadlines and the connection cap, against a live gateway on real sockets.
@Suite("Connections: slow heads, slow bodies and idle sockets are closed; a full server recovers")
struct ConnectionLimitTests {
    static let short = ConnectionLimits(
        headerTimeout: .seconds(1), bodyTimeout: .seconds(1), idleTimeout: .milliseconds(1500))

    @Test("a half-sent head is closed within the header timeout, even when it trickles in")
    func slowHead() async throws {
        try await GatewayHarness.withGateway(useRedis: false, connectionLimits: Self.short) { _, _, port in
            let half = try await RawConnection.connect(port: port)
            try await half.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let started = ContinuousClock.now
            #expect(await half.closed(within: .seconds(4)))
            #expect(ContinuousClock.now - started >= .milliseconds(700))

            let trickle = try await RawConnection.connect(port: port)
            let head = Array(
                "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8)
            var sent = 0
            let trickleStart = ContinuousClock.now
            while trickle.isOpen, sent < head.count, ContinuousClock.now - trickleStart < .seconds(5) {
                try? await trickle.send([head[sent]])
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
            // Each byte is progress, but the head as a whole is late.
            #expect(await trickle.closed(within: .seconds(2)))
            #expect(ContinuousClock.now - trickleStart < .seconds(4))
        }
    }

    @Test("a body that stalls is closed within the body timeout")
    func slowBody() async throws {
        try await GatewayHarness.withGateway(useRedis: false, connectionLimits: Self.short) { _, _, port in
            let connection = try await RawConnection.connect(port: port)
            try await connection.send(
                "POST /t/demo/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type="
            )
            #expect(await connection.closed(within: .seconds(4)))
        }
    }

    @Test("an idle keep-alive connection is closed after the idle timeout, not before")
    func idleKeepAlive() async throws {
        try await GatewayHarness.withGateway(useRedis: false, connectionLimits: Self.short) { _, _, port in
            let connection = try await RawConnection.connect(port: port)
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await connection.received("200 OK", within: .seconds(3)))
            #expect(!(await connection.closed(within: .milliseconds(900))))
            // A second request on the same connection is served and restarts the idle clock.
            try await connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await connection.received("HTTP/1.1 200 OK\r\n", within: .seconds(3)))
            #expect(await connection.closed(within: .seconds(4)))
        }
    }

    @Test(
        "near the connection cap one address keeps its fair share, the oldest half-sent connections are shed and a new client is served at once"
    )
    func cap() async throws {
        let limits = ConnectionLimits(
            headerTimeout: .seconds(30), bodyTimeout: .seconds(30), idleTimeout: .seconds(30), maxConnections: 10)
        try await GatewayHarness.withGateway(useRedis: false, connectionLimits: limits) { harness, _, port in
            // 20 half-open from one address: it holds 7 (its fair share of the low-water
            // mark once the server is overloaded at 8), the rest are closed at once.
            // (Admitted on several event loops, so which 7 is not fixed.)
            var connections: [RawConnection] = []
            for _ in 0..<20 { connections.append(try await RawConnection.connect(port: port)) }
            let idle = connections
            let refused = await eventually(within: .seconds(2)) { idle.filter(\.isOpen).count == 7 }
            #expect(
                refused,
                "past its fair share, connections from a flooding address are refused: \(idle.filter(\.isOpen).count) open"
            )
            let started = ContinuousClock.now
            let fresh = try await RawConnection.connect(port: port, from: "127.0.0.2")
            try await fresh.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(await fresh.received("HTTP/1.1 200 OK", within: .seconds(3)), "healthz not answered: \(fresh.text)")
            // Served long before any header timeout: older half-sent connections made room.
            #expect(ContinuousClock.now - started < .seconds(3))
            let shed = await eventually(within: .seconds(2)) { idle.filter(\.isOpen).count == 6 }
            #expect(shed, "no half-sent connection was shed")
            let metrics = try await RawHTTP.send(.GET, "http://127.0.0.1:\(port)/metrics")
            #expect(
                metrics.body.contains("gateway_http_connections_shed_total{reason=\"slow_head\"}")
                    && metrics.body.contains("gateway_http_connections_refused_total{reason=\"fair_share\"}"),
                "\(metrics.body.split(separator: "\n").filter { $0.contains("gateway_http_conn") })")
            for connection in idle { await connection.close() }
            #expect(limits.effectiveMaxConnections(descriptorLimit: 2048) == 10)
            #expect(ConnectionLimits().effectiveMaxConnections(descriptorLimit: 2048) == 1792)
            _ = harness
        }
    }

    @Test(
        "one address holds at most its cap of connections; the next is closed at once and counted, another address is served"
    )
    func perAddressCap() async throws {
        let limits = ConnectionLimits(maxConnectionsPerAddress: 5)
        try await GatewayHarness.withGateway(useRedis: false, connectionLimits: limits) { _, _, port in
            // Six from one address; the server admits them on several event loops, so which
            // one is refused is not fixed, only that exactly one is.
            var connections: [RawConnection] = []
            for _ in 0..<6 { connections.append(try await RawConnection.connect(port: port, from: "127.0.0.2")) }
            let opened = connections
            let oneClosed = await eventually(within: .seconds(2)) { opened.contains { !$0.isOpen } }
            #expect(oneClosed, "no connection past the cap was closed")
            let held = opened.filter(\.isOpen)
            #expect(held.count == 5)
            let other = try await RawConnection.connect(port: port, from: "127.0.0.3")
            try await other.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await other.received("HTTP/1.1 200 OK", within: .seconds(2)))
            #expect(held.allSatisfy { $0.isOpen })
            let metrics = try await RawHTTP.send(.GET, "http://127.0.0.1:\(port)/metrics")
            #expect(
                metrics.body.contains("gateway_http_connections_refused_total{reason=\"per_address\"} 1"),
                "\(metrics.body.split(separator: "\n").filter { $0.contains("refused") })")
            for connection in held + [other] { await connection.close() }
        }
    }
}
