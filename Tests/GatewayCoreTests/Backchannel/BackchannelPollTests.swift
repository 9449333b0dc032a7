import Foundation
import Testing
@testable import GatewayCore

/// CIBA §11 `slow_down` (issue 62 §3): the raised interval applies from the poll that was too
/// soon, so the next poll inside it hears `slow_down` again, not one poll late.
@Suite("Backchannel polls")
struct BackchannelPollTests {
    @Test("a poll inside the raised interval is slow_down again; one after it is on time")
    func raisedIntervalAppliesFromTheSlowDown() async throws {
        let clock = ManualClock(frozen: true)
        let requests = BackchannelRequests(cache: MemoryCache(clock: clock.wall), clock: clock.wall)
        let now = clock.wall.now()
        let request = BackchannelRequest(
            id: "req-1", tenantID: "acme", clientID: "tv", subject: "nina", scopes: ["openid"], bindingMessage: nil,
            acrValues: [], address: nil, requestedAt: now, expiresAt: now.addingTimeInterval(120), interval: 5,
            mode: .poll)
        #expect(try await requests.poll(request) == nil)  // t = 0: on time
        clock.advance(.seconds(2))
        #expect(try await requests.poll(request) == 10)  // t = 2: too soon, the interval is now 10 s
        clock.advance(.seconds(6))
        // t = 8: past the first gate (5 s from t = 0) but inside the raised one (10 s from t = 2).
        #expect(try await requests.poll(request) == 15)
        clock.advance(.seconds(15))
        #expect(try await requests.poll(request) == nil)  // t = 23: 15 s after the last slow_down
        clock.advance(.seconds(14) + .milliseconds(800))
        #expect(try await requests.poll(request) == nil)  // 250 ms of jitter forgiven
    }
}
