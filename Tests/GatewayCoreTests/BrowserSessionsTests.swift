import Foundation
import Testing

@testable import GatewayCore

/// Browsers' single sign-on sessions (issue 63 §6) in the shared cache: a cookie value names a
/// session by its keyed digest, per tenant; it expires; logout ends one; a recovery ends every
/// session of the user begun before it, not the one begun after.
@Suite("Browser sessions")
struct BrowserSessionsTests {
    let clock = ManualClock(frozen: true)

    func sessions() -> (BrowserSessions, MemoryCache) {
        let cache = MemoryCache(clock: clock.wall)
        return (BrowserSessions(cache: cache, sealer: Fixtures.sealer, clock: clock.wall), cache)
    }

    @Test("a session lives 12 hours, in its tenant, named only by its digest")
    func lifetime() async throws {
        let (sessions, cache) = sessions()
        let value = try await sessions.start(tenantID: "acme", subject: "u-1", amr: ["pwd", "otp"])
        let session = try #require(try await sessions.current(tenantID: "acme", value: value))
        #expect(session.subject == "u-1" && session.amr == ["pwd", "otp"] && session.acr == BackchannelRules.totpACR)
        #expect(try await sessions.current(tenantID: "beta", value: value) == nil)
        #expect(try await sessions.current(tenantID: "acme", value: "not-a-session") == nil)
        #expect(try await cache.get("sso:acme:\(value)") == nil, "the cookie's value is no cache key")
        clock.advance(.seconds(12 * 3_600 + 1))
        #expect(try await sessions.current(tenantID: "acme", value: value) == nil)
    }

    @Test("logout ends one session; endAll ends every earlier one of the user, not later ones or others'")
    func ending() async throws {
        let (sessions, _) = sessions()
        let phone = try await sessions.start(tenantID: "acme", subject: "u-1", amr: ["pwd"])
        let laptop = try await sessions.start(tenantID: "acme", subject: "u-1", amr: ["pwd"])
        let someoneElse = try await sessions.start(tenantID: "acme", subject: "u-2", amr: ["pwd"])
        try await sessions.end(tenantID: "acme", value: phone)
        #expect(try await sessions.current(tenantID: "acme", value: phone) == nil)
        #expect(try await sessions.current(tenantID: "acme", value: laptop) != nil)

        clock.advance(.seconds(1))
        try await sessions.endAll(tenantID: "acme", subject: "u-1")
        #expect(try await sessions.current(tenantID: "acme", value: laptop) == nil)
        #expect(try await sessions.current(tenantID: "acme", value: someoneElse) != nil)
        clock.advance(.milliseconds(1))
        let afterRecovery = try await sessions.start(tenantID: "acme", subject: "u-1", amr: ["pwd"])
        #expect(try await sessions.current(tenantID: "acme", value: afterRecovery) != nil)
    }
}
