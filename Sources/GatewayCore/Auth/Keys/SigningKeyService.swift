import Foundation

/// A signing key rule an operator's request breaks.
public enum SigningKeyError: Error, Sendable, Equatable {
    /// RSA keys are 2048, 3072 or 4096 bits.
    case invalidRSABits(Int)
    /// A key is published 0 seconds to 30 days before it signs.
    case invalidSignAfter
    /// The tenant publishes no key of that id.
    case notPublished(kid: String)
    /// The key is the only one of its algorithm that signs or will: retiring it would leave
    /// nothing to sign with (unless it is retired at once, as a compromised key is).
    case onlySigner(kid: String, algorithm: SigningKey.Algorithm)
}

/// Rotating and retiring a tenant's signing keys (issue 48: the rules once, for gatewayctl's
/// database path and the admin API alike). Each change is one store transaction with its
/// audit record.
public struct SigningKeyService: Sendable {
    let keys: any SigningKeyStore
    let clients: any ClientStore

    /// The RSA key sizes a rotation may ask for.
    public static let rsaBits: Set<Int> = [2048, 3072, 4096]
    /// The longest a new key may be published before it signs.
    public static let maxSignAfter: TimeInterval = 30 * 86400

    public init(keys: any SigningKeyStore, clients: any ClientStore) {
        self.keys = keys
        self.clients = clients
    }

    /// The tenant's keys as they stand at `now`, newest first.
    public func documents(tenantID: String, at now: Date) async throws -> [SigningKeyDocument] {
        let tenantKeys = TenantKeys(try await keys.signingKeys(tenantID: tenantID))
        return tenantKeys.keys.map { SigningKeyDocument($0, in: tenantKeys, at: now) }
    }

    /// Adds a key of `algorithm`, published at once, signing `signAfter` seconds later (0:
    /// at once, for emergencies: relying parties holding an older JWKS cannot verify it yet).
    /// Older keys of the algorithm then verify only.
    public func rotate(
        tenantID: String, algorithm: SigningKey.Algorithm, rsaBits: Int = 2048, signAfter: TimeInterval, now: Date,
        actor: AuditActor, requestID: String?
    ) async throws -> SigningKeyDocument {
        guard algorithm == .es256 || Self.rsaBits.contains(rsaBits) else { throw SigningKeyError.invalidRSABits(rsaBits) }
        guard (0...Self.maxSignAfter).contains(signAfter) else { throw SigningKeyError.invalidSignAfter }
        let key = try SigningKey.generate(
            tenantID: tenantID, algorithm: algorithm, rsaBits: rsaBits, now: now, signFrom: now.addingTimeInterval(signAfter))
        let draft = SigningKeyTrail.draft(
            tenantID: tenantID, kid: key.kid, before: [:], after: [key.kid: .init(key, schedule: key.schedule)],
            actor: actor, requestID: requestID, time: now, outcome: .created)
        try await keys.addSigningKey(key, trail: draft)
        let tenantKeys = TenantKeys(try await keys.signingKeys(tenantID: tenantID))
        return SigningKeyDocument(tenantKeys.keys.first { $0.kid == key.kid } ?? key, in: tenantKeys, at: now)
    }

    /// Stops `kid` signing at `now`; it stays published for the longest lifetime of a token it
    /// can have signed, or is unpublished at once when `immediately` (a compromised key). When
    /// it was the signer and no other key signs now, the next key of its algorithm is brought
    /// forward to sign at once. Decided and written in one transaction, so two retirements at
    /// once never leave an algorithm without a signer.
    public func retire(
        tenantID: String, kid: String, immediately: Bool, now at: Date, actor: AuditActor, requestID: String?
    ) async throws -> SigningKeyRetirement {
        let lifetime = try await longestTokenLifetime(tenantID: tenantID)
        let written = try await keys.scheduleSigningKeys(
            tenantID: tenantID,
            trail: { stored, schedules in
                let changed = stored.filter { schedules[$0.kid] != nil }
                return SigningKeyTrail.draft(
                    tenantID: tenantID, kid: kid,
                    before: Dictionary(uniqueKeysWithValues: changed.map { ($0.kid, .init($0, schedule: $0.schedule)) }),
                    after: Dictionary(uniqueKeysWithValues: changed.map { ($0.kid, .init($0, schedule: schedules[$0.kid]!)) }),
                    actor: actor, requestID: requestID, time: at)
            }
        ) { stored in
            try Self.retirementPlan(TenantKeys(stored), kid: kid, immediately: immediately, at: at, lifetime: lifetime)
        }
        let unpublishAt = written[kid]?.unpublishAt ?? at
        return SigningKeyRetirement(
            retired: kid, tenant: tenantID, unpublishAt: unpublishAt, promoted: written.keys.first { $0 != kid })
    }

    /// The schedules retiring `kid` writes: its own, and the next key's brought forward when
    /// nothing else would sign.
    static func retirementPlan(
        _ keys: TenantKeys, kid: String, immediately: Bool, at: Date, lifetime: TimeInterval
    ) throws -> [String: SigningKey.Schedule] {
        guard let key = keys.keys.first(where: { $0.kid == kid }), key.isPublished(at: at) else {
            throw SigningKeyError.notPublished(kid: kid)
        }
        // Another published key of the algorithm that signs now or later takes over: one not
        // retired itself (only retiring sets `signUntil`). Not "signUntil after `at`": a
        // retirement that waited for this one's transaction took its `at` before it, so a key
        // this one just retired could look as if it still signed then.
        let successors = keys.published(at: at).filter {
            $0.kid != kid && $0.algorithm == key.algorithm && $0.schedule.signUntil == nil
        }
        guard !successors.isEmpty || immediately else {
            throw SigningKeyError.onlySigner(kid: kid, algorithm: key.algorithm)
        }
        var schedules: [String: SigningKey.Schedule] = [:]
        var retiring = key.schedule
        retiring.signUntil = min(retiring.signUntil ?? at, at)
        let signedAnything = key.schedule.signFrom <= at
        let unpublish = immediately || !signedAnything ? at : at.addingTimeInterval(lifetime)
        // Retired again: it leaves no later than it was going to.
        retiring.unpublishAt = min(key.schedule.unpublishAt ?? unpublish, unpublish)
        schedules[kid] = retiring
        let wasSigning = keys.signer(key.algorithm, at: at)?.kid == kid
        if wasSigning, !successors.contains(where: { $0.maySign(at: at) }),
            let next = successors.min(by: { $0.schedule.signFrom < $1.schedule.signFrom })
        {
            var brought = next.schedule
            brought.signFrom = at
            schedules[next.kid] = brought
        }
        return schedules
    }

    /// The longest a token the tenant's keys sign stays valid: access and sender tokens (each
    /// client's lifetime), ID tokens (their access token's), mini-app tokens, plus clock skew.
    func longestTokenLifetime(tenantID: String) async throws -> TimeInterval {
        let registered = try await clients.clients(tenantID: tenantID)
        let longest = max(
            registered.map(\.accessTokenLifetimeSeconds).max() ?? 0,
            Int(MiniAppAccessTokenService.maxLifetime.components.seconds))
        return TimeInterval(longest) + TokenVerifier.skew
    }
}

/// The audit record of a signing-key change: each key's schedule before and after (never
/// key material).
enum SigningKeyTrail {
    /// What the trail keeps of one key.
    struct Entry: Encodable, Equatable {
        var alg: String
        var signFrom: Date
        var signUntil: Date?
        var unpublishAt: Date?

        init(_ key: SigningKey, schedule: SigningKey.Schedule) {
            alg = key.algorithm.rawValue
            signFrom = schedule.signFrom
            signUntil = schedule.signUntil
            unpublishAt = schedule.unpublishAt
        }
    }

    static func draft(
        tenantID: String, kid: String, before: [String: Entry], after: [String: Entry], actor: AuditActor,
        requestID: String?, time: Date, outcome: AuditOutcome = .ok
    ) -> AuditDraft {
        AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: .act,
            resource: AuditResource(type: .signingKey, tenant: tenantID, id: kid), outcome: outcome,
            change: AuditChange.between(before.isEmpty ? nil : before, after, ignoring: []))
    }
}
