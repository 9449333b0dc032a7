import Foundation
import Synchronization
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// Outbound calls to URLs clients registered: the address rule and the pinned address.
@Suite("Pinned outbound targets")
struct PinnedTargetTests {
    @Test(
        "special-purpose addresses are refused, public ones pass",
        arguments: [
            ("127.0.0.1", false), ("10.1.2.3", false), ("172.31.255.255", false), ("172.32.0.1", true),
            ("192.168.0.10", false), ("169.254.169.254", false), ("100.64.0.1", false), ("0.0.0.0", false),
            ("224.0.0.1", false), ("255.255.255.255", false), ("198.18.0.1", false), ("203.0.113.9", false),
            ("8.8.8.8", true), ("93.184.216.34", true), ("::1", false), ("::", false), ("fe80::1", false),
            ("fd00::1", false), ("::ffff:10.0.0.1", false), ("::ffff:8.8.8.8", true), ("64:ff9b::a00:1", false),
            ("2002:a00:1::", false), ("2001:db8::1", false), ("ff02::1", false), ("2606:4700:4700::1111", true),
        ])
    func addressRule(address: String, isPublic: Bool) throws {
        #expect(SpecialPurposeAddresses.isPublic(try #require(IPAddress(address))) == isPublic)
    }

    @Test("a name is resolved once and pinned to the address checked; a private one only when allowed")
    func resolvesOnceAndPins() async throws {
        let calls = Atomic<Int>(0)
        let resolver: @Sendable (String, Int) throws -> IPAddress? = { name, _ in
            calls.add(1, ordering: .relaxed)
            return name == "rebind.example" ? IPAddress("10.0.0.7") : IPAddress("93.184.216.34")
        }
        let target = try await PinnedTarget.resolve(
            "https://client.example/ciba", allowSpecialPurpose: false, resolver: resolver)
        #expect(
            target == PinnedTarget(host: "client.example", port: 443, address: try #require(IPAddress("93.184.216.34")))
        )
        #expect(target.hostOverride == ["client.example": "93.184.216.34"])
        #expect(calls.load(ordering: .relaxed) == 1)

        await #expect(throws: PinnedTarget.Refusal.specialPurpose(try #require(IPAddress("10.0.0.7")))) {
            try await PinnedTarget.resolve(
                "https://rebind.example:8443/x", allowSpecialPurpose: false, resolver: resolver)
        }
        let allowed = try await PinnedTarget.resolve(
            "https://rebind.example:8443/x", allowSpecialPurpose: true, resolver: resolver)
        #expect(allowed.port == 8443 && allowed.hostOverride == ["rebind.example": "10.0.0.7"])
        #expect(calls.load(ordering: .relaxed) == 3)
    }

    @Test("address literals skip the resolver; the system resolver answers localhost with loopback; bad URLs refused")
    func literalsSystemResolverAndBadURLs() async throws {
        let never: @Sendable (String, Int) throws -> IPAddress? = { _, _ in
            Issue.record("resolver called")
            return nil
        }
        await #expect(throws: PinnedTarget.Refusal.specialPurpose(try #require(IPAddress("::1")))) {
            try await PinnedTarget.resolve("http://[::1]:9/x", allowSpecialPurpose: false, resolver: never)
        }
        let literal = try await PinnedTarget.resolve("http://127.0.0.1:9/x", allowSpecialPurpose: true, resolver: never)
        #expect(literal.address == IPAddress("127.0.0.1") && literal.port == 9)
        let local = try await PinnedTarget.resolve("https://localhost/ciba", allowSpecialPurpose: true)
        #expect(local.address.bytes == [127, 0, 0, 1] || local.address == IPAddress("::1"))
        await #expect(throws: PinnedTarget.Refusal.specialPurpose(local.address)) {
            try await PinnedTarget.resolve("https://localhost/ciba", allowSpecialPurpose: false)
        }
        for bad in ["ftp://client.example/x", "/relative", "https:///nohost"] {
            await #expect(throws: PinnedTarget.Refusal.malformed) {
                try await PinnedTarget.resolve(bad, allowSpecialPurpose: true, resolver: never)
            }
        }
        await #expect(throws: PinnedTarget.Refusal.unresolvable) {
            try await PinnedTarget.resolve("https://nowhere.invalid/x", allowSpecialPurpose: true) { _, _ in nil }
        }
    }

    @Test("a ping goes to the pinned address under the name the client registered, through the client's breaker")
    func pingsThePinnedAddress() async throws {
        try await FakeNotificationEndpoint.with { endpoint in
            // A breaker that opens on the first failure, with a long open period.
            let guards = UpstreamGuards(
                configuration: .init(breaker: .init(minimumCalls: 1, failureRatio: 0.5, openDuration: .seconds(600))))
            let pings = BackchannelPings(
                guards: guards, metrics: GatewayMetrics(),
                resolver: { name, _ in name == "desk.example" ? IPAddress("127.0.0.1") : nil })
            var request = BackchannelRequest(
                id: "req-1", tenantID: "demo", clientID: "desk", subject: "s", scopes: ["openid"], bindingMessage: nil,
                acrValues: [], address: nil, requestedAt: Date(), expiresAt: Date().addingTimeInterval(60), interval: 5,
                mode: .ping)
            request.notificationToken = "notify-token"
            let url = "http://desk.example:\(endpoint.port)/ciba"
            let refused = await pings.ping(request, endpoint: url, settings: CIBASettings())
            let loopback = try #require(IPAddress("127.0.0.1"))
            #expect(refused == .refused(.specialPurpose(loopback)))
            #expect(endpoint.pings.isEmpty)

            let allowed = CIBASettings(allowPrivateNotificationEndpoints: true)
            #expect(await pings.ping(request, endpoint: url, settings: allowed) == .delivered)
            #expect(endpoint.pings == [.init(authorization: "Bearer notify-token", body: #"{"auth_req_id":"req-1"}"#)])

            endpoint.status.store(503, ordering: .relaxed)
            guard case .failed = await pings.ping(request, endpoint: url, settings: allowed) else {
                Issue.record("a 503 counted as delivered")
                return
            }
            #expect(guards.guardFor(tenantID: "demo", upstream: "ciba-ping:desk").breaker.phase == .open)
            endpoint.status.store(204, ordering: .relaxed)
            // The open breaker keeps the next ping from the endpoint (it saw two, not three).
            #expect(await pings.ping(request, endpoint: url, settings: allowed) != .delivered)
            #expect(endpoint.pings.count == 2)
        }
    }
}
