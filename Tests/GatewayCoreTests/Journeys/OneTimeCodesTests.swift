import Foundation
import RedisClient
import Synchronization
import Testing

@testable import GatewayCore

/// One-time codes and their budget (issue 63 §4-5) on the in-process cache and on Redis when
/// `make test` provides one: the same contract, any replica checking what another sent.
@Suite("One-time codes")
struct OneTimeCodesTests {
    static let sealer = SecretSealer(masterKey: try! MasterKey(base64: Data(repeating: 7, count: 32).base64EncodedString()))

    static var caches: [String] { AuthorizationCodeRedemptionTests.caches }

    /// The cache of `kind`, its Redis client to close, and the clock a memory cache follows.
    static func cache(_ kind: String, clock: ManualClock) throws -> (cache: any Cache, client: RedisClient?) {
        guard kind == "redis" else { return (MemoryCache(clock: clock.wall), nil) }
        return try AuthorizationCodeRedemptionTests.cache(kind)
    }

    @Test("a code is right once; wrong tries count down and the last voids it", arguments: caches)
    func rightOnceWrongCountsDown(kind: String) async throws {
        let clock = ManualClock(frozen: true)
        let (cache, client) = try Self.cache(kind, clock: clock)
        let codes = OneTimeCodes(cache: cache, sealer: Self.sealer)
        let email = "nina@example.com"
        let code = try await codes.issue(tenantID: "acme", purpose: .verifyEmail, identifier: email)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        // Another purpose, identifier or tenant has no code.
        #expect(try await codes.check(tenantID: "acme", purpose: .recovery, identifier: email, code: code) == .noCode)
        #expect(try await codes.check(tenantID: "beta", purpose: .verifyEmail, identifier: email, code: code) == .noCode)
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyEmail, identifier: "x@example.com", code: code) == .noCode)
        let wrong = code == "000000" ? "000001" : "000000"
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyEmail, identifier: email, code: wrong) == .wrong(triesLeft: 4))
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyEmail, identifier: email, code: "12") == .wrong(triesLeft: 3))
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyEmail, identifier: email, code: code) == .accepted)
        // Used once.
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyEmail, identifier: email, code: code) == .noCode)

        // Five wrong tries void a code: the right one then finds nothing.
        let next = try await codes.issue(tenantID: "acme", purpose: .signIn, identifier: "+81901234567")
        let bad = next == "999999" ? "999998" : "999999"
        for left in (0..<5).reversed() {
            #expect(
                try await codes.check(tenantID: "acme", purpose: .signIn, identifier: "+81901234567", code: bad)
                    == .wrong(triesLeft: left))
        }
        #expect(try await codes.check(tenantID: "acme", purpose: .signIn, identifier: "+81901234567", code: next) == .noCode)
        await client?.shutdown()
    }

    @Test("a new code replaces the live one, and a fresh code gets fresh tries", arguments: caches)
    func aNewCodeReplacesTheOld(kind: String) async throws {
        let clock = ManualClock(frozen: true)
        let (cache, client) = try Self.cache(kind, clock: clock)
        let sequence = Counter()
        let codes = OneTimeCodes(cache: cache, sealer: Self.sealer) { _ in sequence.next() }
        let first = try await codes.issue(tenantID: "acme", purpose: .recovery, identifier: "nina")
        #expect(try await codes.check(tenantID: "acme", purpose: .recovery, identifier: "nina", code: "555555") == .wrong(triesLeft: 4))
        let second = try await codes.issue(tenantID: "acme", purpose: .recovery, identifier: "nina")
        #expect(first == "000123" && second == "000124")
        #expect(try await codes.check(tenantID: "acme", purpose: .recovery, identifier: "nina", code: first) == .wrong(triesLeft: 4))
        #expect(try await codes.check(tenantID: "acme", purpose: .recovery, identifier: "nina", code: second) == .accepted)
        await client?.shutdown()
    }

    @Test("concurrent guesses get at most five tries in all; concurrent right answers, one acceptance", arguments: caches)
    func concurrentChecks(kind: String) async throws {
        let clock = ManualClock(frozen: true)
        let (cache, client) = try Self.cache(kind, clock: clock)
        let codes = OneTimeCodes(cache: cache, sealer: Self.sealer) { _ in 314_159 }
        _ = try await codes.issue(tenantID: "acme", purpose: .signIn, identifier: "guessed")
        let guesses = try await withThrowingTaskGroup(of: OneTimeCodes.Check.self) { group in
            for guess in 0..<40 {
                group.addTask {
                    try await codes.check(tenantID: "acme", purpose: .signIn, identifier: "guessed", code: String(100_000 + guess))
                }
            }
            return try await group.reduce(into: [OneTimeCodes.Check]()) { $0.append($1) }
        }
        // At most five were compared, never more (one racing the sixth try's void may find no
        // code left at all).
        let compared = guesses.filter { if case .wrong = $0 { true } else { false } }.count
        #expect(compared <= 5 && !guesses.contains(.accepted), "\(guesses)")
        #expect(try await codes.check(tenantID: "acme", purpose: .signIn, identifier: "guessed", code: "314159") == .noCode)

        _ = try await codes.issue(tenantID: "acme", purpose: .signIn, identifier: "raced")
        let answers = try await withThrowingTaskGroup(of: OneTimeCodes.Check.self) { group in
            for _ in 0..<5 {
                group.addTask { try await codes.check(tenantID: "acme", purpose: .signIn, identifier: "raced", code: "314159") }
            }
            return try await group.reduce(into: [OneTimeCodes.Check]()) { $0.append($1) }
        }
        #expect(answers.filter { $0 == .accepted }.count == 1, "\(answers)")
        await client?.shutdown()
    }

    @Test("a code lives ten minutes (the cache's clock moves, nothing sleeps)")
    func aCodeExpires() async throws {
        let clock = ManualClock(frozen: true)
        let codes = OneTimeCodes(cache: MemoryCache(clock: clock.wall), sealer: Self.sealer)
        let code = try await codes.issue(tenantID: "acme", purpose: .verifyPhone, identifier: "+15550100")
        clock.advance(.seconds(599))
        let early = try await codes.issue(tenantID: "acme", purpose: .verifyPhone, identifier: "+15550101")
        clock.advance(.seconds(2))
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyPhone, identifier: "+15550100", code: code) == .noCode)
        #expect(try await codes.check(tenantID: "acme", purpose: .verifyPhone, identifier: "+15550101", code: early) == .accepted)
    }

    @Test("the sixth code in an hour is refused; per address and per tenant too; a new hour is a new budget")
    func theBudget() async throws {
        let clock = ManualClock(frozen: true)
        var limits = CodeBudget.Limits()
        limits.perAddressPerHour = 8
        limits.perTenantPerDay = 11
        let budget = CodeBudget(cache: MemoryCache(clock: clock.wall), sealer: Self.sealer, clock: clock.wall, limits: limits)
        for _ in 0..<5 {
            #expect(try await budget.spend(tenantID: "acme", identifier: "nina", address: "192.0.2.1") == .allowed)
        }
        guard case .refused(.identifier, let wait) = try await budget.spend(tenantID: "acme", identifier: "nina", address: "192.0.2.1")
        else { Issue.record("the sixth code was not refused"); return }
        #expect(wait > .zero && wait <= .seconds(3_600))
        // Other identifiers from the same address: the address's bound (8) comes next.
        #expect(try await budget.spend(tenantID: "acme", identifier: "omar", address: "192.0.2.1") == .allowed)
        #expect(try await budget.spend(tenantID: "acme", identifier: "pia", address: "192.0.2.1") == .allowed)
        if case .refused(let bound, _) = try await budget.spend(tenantID: "acme", identifier: "quinn", address: "192.0.2.1") {
            #expect(bound == .address)
        } else {
            Issue.record("the address's ninth code was not refused")
        }
        // Another tenant has its own budget.
        #expect(try await budget.spend(tenantID: "beta", identifier: "nina", address: "192.0.2.1") == .allowed)
        // A new hour: the identifier's budget is back; the tenant's day goes on (11 in all).
        clock.advance(.seconds(3_600))
        #expect(try await budget.spend(tenantID: "acme", identifier: "nina", address: "192.0.2.9") == .allowed)
        #expect(try await budget.spend(tenantID: "acme", identifier: "rex", address: nil) == .allowed)
        if case .refused(let bound, _) = try await budget.spend(tenantID: "acme", identifier: "sam", address: nil) {
            #expect(bound == .tenant)
        } else {
            Issue.record("the tenant's twelfth code of the day was not refused")
        }
    }
}

/// Codes 123, 124, … in order (a fixed random source).
private final class Counter: Sendable {
    private let value = Mutex(122)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}
