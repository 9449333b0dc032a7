import Foundation

/// The one-time codes of the journeys (issue 63): 6 digits, good for 10 minutes and 5 tries,
/// one live code per tenant, purpose and identifier (a new one replaces it), used once. They
/// live in the shared cache, so any replica checks a code another one sent, and only as a
/// keyed digest (``SecretSealer/fingerprint(_:context:)``): a copy of the cache does not give
/// a code away, and 10⁶ candidates cannot be tried offline without the master key. The
/// identifier is a digest in the keys too.
public struct OneTimeCodes: Sendable {
    /// What a code proves.
    public enum Purpose: String, Sendable, CaseIterable {
        case verifyEmail = "verify-email"
        case verifyPhone = "verify-phone"
        case signIn = "sign-in"
        case recovery
    }

    /// The bounds of one code.
    public struct Policy: Sendable, Equatable {
        public var digits = 6
        public var lifetime: Duration = .seconds(600)
        public var maxTries = 5

        public init() {}
    }

    /// What a check found.
    public enum Check: Sendable, Equatable {
        /// The code was right; it is used up.
        case accepted
        /// Wrong; `triesLeft` more before the code is void (0: it is void now).
        case wrong(triesLeft: Int)
        /// No live code: never sent, expired, replaced, used, or voided by too many tries.
        case noCode
    }

    private let cache: any Cache
    private let sealer: SecretSealer
    public let policy: Policy
    private let random: @Sendable (ClosedRange<Int>) -> Int

    /// - Parameter random: a number in the range, uniformly (the system's CSPRNG; tests fix it).
    public init(
        cache: any Cache, sealer: SecretSealer, policy: Policy = Policy(),
        random: @escaping @Sendable (ClosedRange<Int>) -> Int = { Int.random(in: $0) }
    ) {
        self.cache = cache
        self.sealer = sealer
        self.policy = policy
        self.random = random
    }

    /// A new code for `identifier` (already normalized: a lowercased e-mail, an E.164 number),
    /// replacing any live one; the code itself, to send, and never kept in the clear.
    public func issue(tenantID: String, purpose: Purpose, identifier: String) async throws -> String {
        let upper = (0..<policy.digits).reduce(1) { value, _ in value * 10 } - 1
        let number = String(random(0...upper))
        let code = String(repeating: "0", count: max(0, policy.digits - number.count)) + number
        let keys = keys(tenantID, purpose, identifier)
        try await cache.set(keys.code, Array(digest(code, keys.code).utf8), ttl: policy.lifetime)
        _ = try await cache.delete([keys.tries])
        return code
    }

    /// Checks `code`: right once, then used; each wrong try counts, and the last one voids it.
    public func check(tenantID: String, purpose: Purpose, identifier: String, code: String) async throws -> Check {
        let keys = keys(tenantID, purpose, identifier)
        guard try await cache.get(keys.code) != nil else { return .noCode }
        // Every try counts before the comparison, so concurrent guesses cannot exceed the bound.
        let tries = try await cache.increment(keys.tries, by: 1, ttl: policy.lifetime)
        guard tries <= Int64(policy.maxTries) else {
            _ = try await cache.delete([keys.code, keys.tries])
            return .noCode
        }
        guard let stored = try await cache.get(keys.code) else { return .noCode }
        guard code.utf8.count == policy.digits,
            ConstantTime.equals(String(decoding: stored, as: UTF8.self), digest(code, keys.code))
        else {
            let left = policy.maxTries - Int(tries)
            if left == 0 { _ = try await cache.delete([keys.code, keys.tries]) }
            return .wrong(triesLeft: left)
        }
        // Used once, whichever replica checks it: the one that takes it wins.
        guard try await cache.take(keys.code) != nil else { return .noCode }
        _ = try await cache.delete([keys.tries])
        return .accepted
    }

    /// Forgets any live code (the identifier changed, the journey ended).
    public func revoke(tenantID: String, purpose: Purpose, identifier: String) async throws {
        let keys = keys(tenantID, purpose, identifier)
        _ = try await cache.delete([keys.code, keys.tries])
    }

    private func keys(_ tenantID: String, _ purpose: Purpose, _ identifier: String) -> (code: String, tries: String) {
        let name = sealer.fingerprint(identifier, context: "otc:\(tenantID):\(purpose.rawValue)")
        let base = "otc:\(tenantID):\(purpose.rawValue):\(name)"
        return (base + ":code", base + ":tries")
    }

    /// The code's keyed digest, bound to its slot (a digest from one slot is no use in another).
    private func digest(_ code: String, _ slot: String) -> String {
        sealer.fingerprint(code, context: slot)
    }
}
