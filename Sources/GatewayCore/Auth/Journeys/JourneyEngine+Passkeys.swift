import Foundation

/// The relying party a journey keeps from its start: the tenant's `passkeys` settings then,
/// resolved against its public URL (a journey lives minutes; a change applies to the next).
public struct JourneyParty: Sendable, Equatable, Codable {
    public var id: String
    /// What the platform shows for the RP (the tenant's display name).
    public var name: String
    public var origins: [String]

    public init(_ party: RelyingParty, name: String) {
        id = party.id
        self.name = name
        origins = party.origins.sorted()
    }

    var relyingParty: RelyingParty { RelyingParty(id: id, origins: Set(origins)) }
}

extension Journey {
    /// Whether an account signing up without a password waits for its passkey (written with
    /// it, not before).
    var awaitsPasskey: Bool { pending?.subject != nil }
}

/// Passkeys in the journeys (issue 64): the identify screen's `credential` field signs in with
/// any passkey of the tenant's (discoverable, no identifier typed); `create-passkey` is offered
/// once after a sign-in by another factor to an account holding none (skippable), and ends a
/// sign-up without a password (the account is written with its passkey, not before).
extension JourneyEngine {
    /// What a platform may send for a `passkey` field: its credential JSON, at most 8 KiB.
    public static let maximumCredentialLength = 8_192
    /// The name a passkey made in a journey gets (the person renames it in My account).
    static let passkeyName = "Passkey"

    /// Whether journeys offer passkeys for `settings`: the tenant names the factor and the engine
    /// has the ceremonies.
    public func runsPasskeys(_ settings: JourneySettings) -> Bool {
        passkeys != nil && settings.factors.contains(.passkey)
    }

    /// The ceremony the screen of `step` carries: a discoverable authentication on the identify
    /// screen, a registration on create-passkey; nil elsewhere, or without passkeys.
    func passkeyPrompt(for step: JourneyStep, journey: Journey, settings: JourneySettings) async throws -> PasskeyPrompt? {
        guard runsPasskeys(settings), let passkeys, let party = journey.party else { return nil }
        switch step {
        case .identify:
            let (token, options) = try await passkeys.beginAuthentication(
                party: party.relyingParty, tenantID: journey.tenantID, subject: nil)
            return PasskeyPrompt(token: token, request: options)
        case .passkey:
            guard let subject = journey.signedInSubject else { return nil }
            let (token, options) = try await passkeys.beginAuthentication(
                party: party.relyingParty, tenantID: journey.tenantID, subject: subject)
            return PasskeyPrompt(token: token, request: options)
        case .createPasskey:
            let (subject, userName, displayName, held): (String, String, String, [StoredPasskey])
            if let pending = journey.pending, let pendingSubject = pending.subject {
                (subject, userName, displayName, held) = (pendingSubject, pending.username, pending.name ?? pending.username, [])
            } else if let signedIn = journey.signedInSubject,
                let user = try await auth.users.user(tenantID: journey.tenantID, subject: signedIn)
            {
                (subject, userName, displayName) = (user.subject, user.username, user.name ?? user.username)
                held = try await passkeys.store.passkeys(tenantID: journey.tenantID, subject: subject)
            } else {
                return nil
            }
            let (token, options) = try await passkeys.beginRegistration(
                party: party.relyingParty, partyName: party.name, tenantID: journey.tenantID, subject: subject,
                userName: userName, displayName: displayName, held: held)
            return PasskeyPrompt(token: token, creation: options)
        default:
            return nil
        }
    }

    /// `screen` with its passkey fields' options from the journey's ceremony (the fields
    /// dropped when there is none) and, for an account waiting for its passkey, no `skip`.
    func withPasskeyOptions(_ screen: JourneyScreen, journey: Journey) -> JourneyScreen {
        var copy = screen
        let options: JourneyScreen.PasskeyOptions? =
            journey.passkeyPrompt.flatMap { prompt in prompt.creation.map { .create($0) } ?? prompt.request.map { .get($0) } }
        copy.fields = screen.fields.compactMap { field in
            guard field.type == .passkey else { return field }
            guard let options else { return nil }
            var filled = field
            filled.options = options
            return filled
        }
        if journey.awaitsPasskey { copy.actions.removeAll { $0 == .skip } }
        return copy
    }

    /// A first factor passed for `user`: the account's passkey next when the asked classes
    /// demand one (step-up) and it holds one; create-passkey when the tenant offers passkeys,
    /// the account holds none and it was not offered in this journey; else signed in.
    func finishOfferingPasskey(
        _ journey: inout Journey, user: LocalUser, settings: JourneySettings, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard journey.party != nil, runsPasskeys(settings), let passkeys else {
            return try await finish(journey, user: user, onHostedPage: onHostedPage)
        }
        let held = try await passkeys.store.passkeys(tenantID: journey.tenantID, subject: user.subject)
        if !held.isEmpty, Self.asksPasskey(journey) {
            journey.signedInSubject = user.subject
            return try await move(&journey, to: .passkey, settings: settings)
        }
        guard journey.passkeyOffered != true, held.isEmpty else {
            return try await finish(journey, user: user, onHostedPage: onHostedPage)
        }
        journey.passkeyOffered = true
        journey.signedInSubject = user.subject
        return try await move(&journey, to: .createPasskey, settings: settings)
    }

    /// The identify screen's submit with a passkey's credential: the passkey any of the tenant's
    /// accounts holds, verified against the screen's ceremony, signs its account in (no second
    /// factor: a passkey is something held and, verified, something known or been). Refused
    /// alike whatever failed, with a new ceremony.
    func signInWithPasskey(
        _ journey: inout Journey, _ credential: String, settings: JourneySettings, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let passkey = try await verifiedAssertion(journey, credential),
            let user = try await auth.users.user(tenantID: journey.tenantID, subject: passkey.subject), !user.disabled
        else { return try await refusePasskey(&journey, settings: settings) }
        journey.amr = passkey.amr
        return try await finish(journey, user: user, onHostedPage: onHostedPage)
    }

    /// The create-passkey screen's submit: the new passkey verified against the screen's
    /// ceremony and kept with its audit record (the user as actor). An account signing up
    /// without a password is written first, then its passkey, and signed in with it; a signed-in
    /// account is signed in as it was.
    func createPasskey(
        _ journey: inout Journey, _ credential: String, settings: JourneySettings, address: String?,
        onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let passkeys, let party = journey.party, let prompt = journey.passkeyPrompt, prompt.creation != nil,
            let answer = Self.decodeCredential(RegistrationResponseJSON.self, credential)
        else { return try await refusePasskey(&journey, settings: settings) }
        let passkey: StoredPasskey
        do {
            passkey = try await passkeys.verifyRegistration(
                token: prompt.token, tenantID: journey.tenantID, answer: answer, party: party.relyingParty,
                name: Self.passkeyName)
        } catch is PasskeyCeremonyError {
            return try await refusePasskey(&journey, settings: settings)
        }
        let user: LocalUser
        if let pending = journey.pending, journey.awaitsPasskey {
            var created = LocalUser(
                tenantID: journey.tenantID, username: pending.username, subject: passkey.subject, name: pending.name,
                email: pending.email, phone: pending.phone, passwordHash: IdentityLinker.noPassword)
            (created.emailVerified, created.phoneVerified) = (pending.verified.contains(.email), pending.verified.contains(.phone))
            // The account and its only way in, in one transaction: never one without the other.
            do {
                try await passkeys.store.addUser(
                    created, holding: passkey, userTrail: signUpTrail(journey, address: address),
                    passkeyTrail: passkeyTrail(created, journey: journey, address: address))
            } catch AuthStoreError.alreadyExists {
                return .refused(try currentScreen(of: journey, settings: settings).with([JourneyScreen.Message(key: "journey.error.taken")]))
            }
            journey.amr = passkey.amr
            return try await finish(journey, user: created, onHostedPage: onHostedPage)
        } else if let signedIn = journey.signedInSubject,
            let found = try await auth.users.user(tenantID: journey.tenantID, subject: signedIn), !found.disabled
        {
            user = found
        } else {
            throw JourneyError.notFound
        }
        do {
            try await passkeys.keep(passkey, trail: passkeyTrail(user, journey: journey, address: address))
        } catch is PasskeyCeremonyError {
            return try await refusePasskey(&journey, settings: settings)
        }
        return try await finish(journey, user: user, onHostedPage: onHostedPage)
    }

    /// Whether the journey's asked classes demand a passkey its sign-in has not used yet.
    static func asksPasskey(_ journey: Journey) -> Bool {
        let amr = journey.amr ?? []
        guard !amr.contains("user") else { return false }
        return (journey.acrValues ?? []).contains { journey.acrDemands?[$0]?.contains("user") == true }
    }

    /// The step-up screen's submit: the signed-in account's own passkey, verified against the
    /// screen's ceremony; the sign-in's `amr` gains the passkey's, its use is audited, and the
    /// code is issued. Refused like a sign-in with a passkey.
    func stepUpWithPasskey(
        _ journey: inout Journey, _ credential: String, settings: JourneySettings, address: String?,
        onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let subject = journey.signedInSubject, let passkey = try await verifiedAssertion(journey, credential),
            passkey.subject == subject,
            let user = try await auth.users.user(tenantID: journey.tenantID, subject: subject), !user.disabled
        else { return try await refusePasskey(&journey, settings: settings) }
        journey.amr = (journey.amr ?? []) + passkey.amr
        _ = try await audit?.append(
            passkeyTrail(
                user, journey: journey, address: address, verb: .act, outcome: .ok, action: "passkey.step-up",
                summary: "stepped up with a passkey through \(journey.clientID)"))
        return try await finish(journey, user: user, onHostedPage: onHostedPage)
    }

    /// Create-passkey's skip: signed in as the first factor left it (never for an account
    /// whose passkey is its only factor).
    func skipPasskey(_ journey: Journey, onHostedPage: Bool) async throws -> JourneyOutcome {
        guard !journey.awaitsPasskey, let subject = journey.signedInSubject,
            let user = try await auth.users.user(tenantID: journey.tenantID, subject: subject), !user.disabled
        else { throw JourneyError.notFound }
        return try await finish(journey, user: user, onHostedPage: onHostedPage)
    }

    /// The passkey a credential answering the screen's request names, verified and its counter
    /// moved; nil when anything failed (the ceremony is spent either way).
    /// A counter that went back (a cloned authenticator, WebAuthn §6.1.1) is recorded in the
    /// audit trail against the passkey's owner.
    private func verifiedAssertion(
        _ journey: Journey, _ credential: String, address: String? = nil
    ) async throws -> StoredPasskey? {
        guard let passkeys, let party = journey.party, let prompt = journey.passkeyPrompt, prompt.request != nil,
            let answer = Self.decodeCredential(AuthenticationResponseJSON.self, credential)
        else { return nil }
        do {
            return try await passkeys.finishAuthentication(
                token: prompt.token, tenantID: journey.tenantID, answer: answer, party: party.relyingParty)
        } catch PasskeyCeremonyError.refused(.counterWentBack(let stored, let received), let subject?) {
            if let audit, let owner = try await auth.users.user(tenantID: journey.tenantID, subject: subject) {
                _ = try await audit.append(
                    passkeyTrail(
                        owner, journey: journey, address: address, verb: .act, outcome: AuditOutcome(status: 422),
                        action: "passkey.refused",
                        summary: "a passkey's sign counter went back (\(stored) to \(received)): refused as a possible clone"))
            }
            return nil
        } catch is PasskeyCeremonyError {
            return nil
        }
    }

    /// The current screen again with a new ceremony (the refused one is spent) and the message
    /// that the passkey was not accepted.
    private func refusePasskey(_ journey: inout Journey, settings: JourneySettings) async throws -> JourneyOutcome {
        guard let step = journey.currentStep else { throw JourneyError.notFound }
        journey.passkeyPrompt = try await passkeyPrompt(for: step, journey: journey, settings: settings)
        try await save(journey)
        return .refused(
            try currentScreen(of: journey, settings: settings).with([
                JourneyScreen.Message(field: "credential", key: "journey.error.passkey")
            ]))
    }

    private func currentScreen(of journey: Journey, settings: JourneySettings) throws -> JourneyScreen {
        guard let screen = screen(of: journey, settings: settings) else { throw JourneyError.notFound }
        return screen
    }

    /// The audit record of something a passkey did in a journey, about `user`'s account (the
    /// user as actor; never the key): made, used as a step-up, refused as a clone.
    private func passkeyTrail(
        _ user: LocalUser, journey: Journey, address: String?, verb: AdminVerb = .create, outcome: AuditOutcome = .created,
        action: String = "passkey.create", summary: String? = nil
    ) -> AuditDraft {
        AuditDraft(
            time: clock.now(), actor: .user(user, method: "passkey", clientID: journey.clientID, address: address),
            verb: verb, resource: AuditResource(type: .user, tenant: journey.tenantID, id: user.username),
            outcome: outcome,
            note: AuditNote(action: action, summary: summary ?? "created a passkey through \(journey.clientID)"))
    }

    /// A credential a platform sent (its JSON as text), decoded; nil when it is too long or not one.
    static func decodeCredential<Response: Decodable>(_ type: Response.Type, _ text: String) -> Response? {
        guard text.utf8.count <= maximumCredentialLength else { return nil }
        return try? JSONDecoder().decode(Response.self, from: Data(text.utf8))
    }
}
