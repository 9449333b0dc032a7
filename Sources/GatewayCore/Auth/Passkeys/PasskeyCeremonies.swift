import Foundation

/// Registration and authentication ceremonies: a challenge issued for one ceremony, kept
/// ``lifetime`` in the shared cache (any replica finishes what another began) and taken once;
/// the answer verified by the tenant's ``RelyingParty``; passkeys kept in the store.
public struct PasskeyCeremonies: Sendable {
    /// How long a ceremony may take (the options' `timeout` too).
    public static let lifetime: Duration = .seconds(300)

    /// A ceremony begun and not yet answered.
    struct Pending: Codable, Sendable {
        var tenantID: String
        var registration: Bool
        /// The account registering a passkey, or the one asked to sign in; nil: whoever's
        /// passkey answers (discoverable credentials).
        var subject: String?
        var challenge: [UInt8]
        var expiresAt: Date
    }

    let store: any PasskeyStore
    let clock: WallClock
    private let pending: HashedTokenEntries<Pending>

    public init(store: any PasskeyStore, cache: any Cache, clock: WallClock) {
        self.store = store
        self.clock = clock
        pending = HashedTokenEntries(cache: cache, prefix: "passkey:ceremony", lifetime: Self.lifetime)
    }

    /// Begins registering a passkey for `subject`: the options to hand to the platform, and
    /// the ceremony's token to answer with. The user's passkeys are excluded (one per
    /// authenticator).
    public func beginRegistration(
        party: RelyingParty, partyName: String, tenantID: String, subject: String, userName: String,
        displayName: String
    ) async throws -> (token: String, options: CreationOptionsJSON) {
        try await beginRegistration(
            party: party, partyName: partyName, tenantID: tenantID, subject: subject, userName: userName,
            displayName: displayName, held: try await store.passkeys(tenantID: tenantID, subject: subject))
    }

    /// ``beginRegistration(party:partyName:tenantID:subject:userName:displayName:)`` when the
    /// caller knows the user's passkeys (`held`): none for an account not written yet.
    public func beginRegistration(
        party: RelyingParty, partyName: String, tenantID: String, subject: String, userName: String,
        displayName: String, held: [StoredPasskey]
    ) async throws -> (token: String, options: CreationOptionsJSON) {
        guard held.count < StoredPasskey.maximumPerUser else { throw PasskeyCeremonyError.tooMany }
        let challenge = Self.challenge()
        let token = try await pending.start(
            Pending(
                tenantID: tenantID, registration: true, subject: subject, challenge: challenge, expiresAt: expiry()),
            tenantID: tenantID)
        let options = CreationOptionsJSON(
            rp: .init(id: party.id, name: partyName),
            user: .init(
                id: Base64URL.encode(StoredPasskey.userHandle(of: subject)), name: userName, displayName: displayName),
            challenge: Base64URL.encode(challenge),
            pubKeyCredParams: COSEKey.algorithms.map { .init(alg: $0) }, timeout: Self.timeoutMilliseconds,
            excludeCredentials: held.map { .init(id: Base64URL.encode($0.credentialID), transports: $0.transports) })
        return (token, options)
    }

    /// Finishes a registration: verifies the answer and keeps the passkey (with `trail` in
    /// the same transaction).
    public func finishRegistration(
        token: String, tenantID: String, answer: RegistrationResponseJSON, party: RelyingParty, name: String,
        trail: AuditDraft?
    ) async throws -> StoredPasskey {
        let passkey = try await verifyRegistration(token: token, tenantID: tenantID, answer: answer, party: party, name: name)
        try await keep(passkey, trail: trail)
        return passkey
    }

    /// The first half of ``finishRegistration(token:tenantID:answer:party:name:trail:)``: the
    /// ceremony taken and the answer verified, the passkey not kept yet (a sign-up writes its
    /// account first, then ``keep(_:trail:)``).
    public func verifyRegistration(
        token: String, tenantID: String, answer: RegistrationResponseJSON, party: RelyingParty, name: String
    ) async throws -> StoredPasskey {
        let ceremony = try await take(token, tenantID: tenantID, registration: true)
        guard let subject = ceremony.subject else { throw PasskeyCeremonyError.expired }
        let verified: VerifiedRegistration
        do { verified = try party.verifyRegistration(answer, challenge: ceremony.challenge) } catch {
            throw PasskeyCeremonyError.refused(error, subject: subject)
        }
        return StoredPasskey(verified, tenantID: tenantID, subject: subject, name: name, at: clock.now())
    }

    /// Keeps a verified passkey (with `trail` in the same transaction).
    public func keep(_ passkey: StoredPasskey, trail: AuditDraft?) async throws {
        do { try await store.addPasskey(passkey, trail: trail) } catch AuthStoreError.alreadyExists {
            throw PasskeyCeremonyError.alreadyRegistered
        } catch AuthStoreError.invalid {
            throw PasskeyCeremonyError.tooMany
        }
    }

    /// Begins an authentication: for `subject`'s passkeys, or (nil) for any passkey the person
    /// picks, as conditional mediation asks.
    public func beginAuthentication(
        party: RelyingParty, tenantID: String, subject: String?
    ) async throws
        -> (token: String, options: RequestOptionsJSON)
    {
        var allowed: [StoredPasskey] = []
        if let subject { allowed = try await store.passkeys(tenantID: tenantID, subject: subject) }
        let challenge = Self.challenge()
        let token = try await pending.start(
            Pending(
                tenantID: tenantID, registration: false, subject: subject, challenge: challenge, expiresAt: expiry()),
            tenantID: tenantID)
        let options = RequestOptionsJSON(
            challenge: Base64URL.encode(challenge), timeout: Self.timeoutMilliseconds, rpId: party.id,
            allowCredentials: allowed.map { .init(id: Base64URL.encode($0.credentialID), transports: $0.transports) })
        return (token, options)
    }

    /// Finishes an authentication: the passkey the answer names, verified, its counter moved
    /// forward. A counter that did not move is refused (`counterWentBack`): the caller
    /// records it in the audit trail.
    public func finishAuthentication(
        token: String, tenantID: String, answer: AuthenticationResponseJSON, party: RelyingParty
    ) async throws -> StoredPasskey {
        let ceremony = try await take(token, tenantID: tenantID, registration: false)
        guard let rawID = Base64URL.decode(answer.rawId),
            var passkey = try await store.passkey(tenantID: tenantID, credentialID: Array(rawID)),
            ceremony.subject == nil || ceremony.subject == passkey.subject
        else { throw PasskeyCeremonyError.unknownCredential }
        let verified: VerifiedAssertion
        do {
            verified = try party.verifyAssertion(answer, challenge: ceremony.challenge, passkey: passkey.registered)
        } catch {
            throw PasskeyCeremonyError.refused(error, subject: passkey.subject)
        }
        let now = clock.now()
        // Two answers checked against one counter value: only the first moves it.
        guard
            try await store.recordPasskeyUse(
                tenantID: tenantID, credentialID: passkey.credentialID, from: passkey.signCount,
                to: verified.signCount, backedUp: verified.backedUp, at: now)
        else {
            throw PasskeyCeremonyError.refused(
                .counterWentBack(stored: passkey.signCount, received: verified.signCount), subject: passkey.subject)
        }
        passkey.signCount = verified.signCount
        passkey.backedUp = verified.backedUp
        passkey.lastUsedAt = now
        return passkey
    }

    static var timeoutMilliseconds: Int { Int(lifetime.components.seconds) * 1_000 }

    private static func challenge() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private func expiry() -> Date {
        clock.now().addingTimeInterval(TimeInterval(Self.lifetime.components.seconds))
    }

    private func take(_ token: String, tenantID: String, registration: Bool) async throws -> Pending {
        guard let ceremony = try await pending.take(token, tenantID: tenantID), ceremony.tenantID == tenantID,
            ceremony.registration == registration, clock.now() < ceremony.expiresAt
        else { throw PasskeyCeremonyError.expired }
        return ceremony
    }
}

/// Why a passkey ceremony did not finish.
public enum PasskeyCeremonyError: Error, Equatable, Sendable {
    /// The ceremony is unknown, answered already, of the other kind, or past its lifetime.
    case expired
    /// The answer names a passkey the tenant does not hold (or not the asked account's).
    case unknownCredential
    /// The answer failed a check; `subject` owns the passkey it named (for the audit trail).
    case refused(PasskeyError, subject: String?)
    /// The new credential is registered already.
    case alreadyRegistered
    /// The user holds ``StoredPasskey/maximumPerUser`` passkeys.
    case tooMany
}
