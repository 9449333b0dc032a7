import Foundation

/// Codes by e-mail and SMS in the journeys (issue 63 §2, §4-5): signing in with one instead of
/// a password, sending a new one, and the code screen saying where it went.
extension JourneyEngine {
    /// The channel a sign-in code for `identifier` goes over, when the tenant signs people in
    /// with codes there (`sms-code` for a phone number, `email-code` for an address) and a
    /// courier sends them; nil: the password comes next.
    func codeSignIn(for identifier: String, settings: JourneySettings) -> CourierMessage.Channel? {
        guard courier != nil else { return nil }
        if Self.looksLikePhone(identifier, settings: settings) {
            return settings.factors.contains(.smsCode) ? .sms : nil
        }
        if settings.identifiers.contains(.email), identifier.contains("@"), settings.factors.contains(.emailCode) {
            return .email
        }
        return nil
    }

    /// Sends a sign-in (or, recovering, a recovery) code to the identifier typed (only when one
    /// account holds it: a number or address no account holds gets nothing, after the same
    /// bounds are spent) and shows the code screen; `screen` refused or throttled when a bound
    /// or the country says no.
    func sendSignInCode(
        _ journey: inout Journey, channel: CourierMessage.Channel, settings: JourneySettings, address: String?,
        screen: JourneyScreen
    ) async throws -> JourneyOutcome {
        if let refused = try await resendSignInCode(journey, channel: channel, settings: settings, address: address, screen: screen) {
            return refused
        }
        return try await move(&journey, to: .code, settings: settings)
    }

    private func resendSignInCode(
        _ journey: Journey, channel: CourierMessage.Channel, settings: JourneySettings, address: String?,
        screen: JourneyScreen
    ) async throws -> JourneyOutcome? {
        guard let courier, let identifier = journey.identifier else { throw JourneyError.notFound }
        let holder = try await holder(of: identifier, tenantID: journey.tenantID, settings: settings)
        let sent = try await courier.send(
            journey.kind == .recovery ? .recovery : .signIn, holder.map { $0.disabled ? .nothing : .code } ?? .nothing,
            tenantID: journey.tenantID,
            to: identifier, channel: channel, locale: journey.locale, settings: settings, address: address)
        return refusal(sent, screen: screen, field: "identifier")
    }

    /// The code screen's submit during a sign-in: the right code signs in the one account
    /// holding the identifier (then its authenticator app's code, when it has one). A wrong
    /// code, a used or expired one, and any code for an identifier no account holds (none was
    /// sent) are refused alike.
    func checkSignInCode(
        _ journey: inout Journey, _ code: String, screen: JourneyScreen, settings: JourneySettings, address: String?,
        onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let identifier = journey.identifier else { throw JourneyError.notFound }
        guard let user = try await holderProving(code, purpose: .signIn, journey: journey, settings: settings) else {
            return Self.wrongCode(screen, sentTo: identifier)
        }
        if identifier.hasPrefix("+") { journey.amr = (journey.amr ?? []) + ["sms"] }
        return try await signedIn(&journey, user: user, settings: settings, onHostedPage: onHostedPage)
    }

    /// The one enabled account holding the journey's identifier, when `code` is the right
    /// `purpose` code for it (used up then); nil for a wrong, used or expired code, and for an
    /// identifier nobody (or a disabled account) holds: the caller refuses them alike.
    func holderProving(
        _ code: String, purpose: OneTimeCodes.Purpose, journey: Journey, settings: JourneySettings
    ) async throws -> LocalUser? {
        guard let courier, let identifier = journey.identifier else { throw JourneyError.notFound }
        let typed = code.trimmingCharacters(in: .whitespaces)
        guard typed.range(of: JourneyStep.codePattern, options: .regularExpression) != nil,
            try await courier.codes.check(tenantID: journey.tenantID, purpose: purpose, identifier: identifier, code: typed)
                == .accepted,
            let user = try await holder(of: identifier, tenantID: journey.tenantID, settings: settings), !user.disabled
        else { return nil }
        return user
    }

    /// The code screen refusing a code, saying where the code went.
    static func wrongCode(_ screen: JourneyScreen, sentTo identifier: String) -> JourneyOutcome {
        .refused(sent(screen, to: identifier).with([JourneyScreen.Message(field: "code", key: "journey.error.code")]))
    }

    /// The code screen's "send a new code": a fresh code (the last one void), within the bounds.
    func resend(
        _ journey: inout Journey, screen: JourneyScreen, settings: JourneySettings, address: String?
    ) async throws -> JourneyOutcome {
        guard let target = Self.codeTarget(of: journey) else { throw JourneyError.notFound }
        let shown = Self.sent(screen, to: target)
        let refused: JourneyOutcome?
        if journey.pending != nil {
            refused = try await sendSignUpCode(journey, settings: settings, address: address, screen: shown)
        } else {
            refused = try await resendSignInCode(
                journey, channel: target.hasPrefix("+") ? .sms : .email, settings: settings, address: address,
                screen: shown)
        }
        return refused ?? .screen(shown)
    }

    /// Where the code the journey waits for went: the pending account's next address or number,
    /// or the identifier a sign-in code went to.
    static func codeTarget(of journey: Journey) -> String? {
        if let pending = journey.pending { return pending.awaiting?.identifier }
        return journey.identifier
    }

    /// The code screen saying where the code went (the address or number masked).
    static func sent(_ screen: JourneyScreen, to identifier: String) -> JourneyScreen {
        let channel: CourierMessage.Channel = identifier.hasPrefix("+") ? .sms : .email
        return screen.with([
            JourneyScreen.Message(
                key: "journey.code.sent", values: ["address": CourierMessage.masked(identifier, channel: channel)])
        ])
    }

    /// What a sending's refusal shows on `screen`: nil when queued; the country beside `field`;
    /// the wait for a bound.
    func refusal(_ sent: JourneyCourier.Sent, screen: JourneyScreen, field: String) -> JourneyOutcome? {
        switch sent {
        case .queued: nil
        case .countryNotAllowed: .refused(screen.with([JourneyScreen.Message(field: field, key: "journey.error.country")]))
        case .throttled(let retryAfter): throttled(screen, retryAfter, key: "journey.error.codes")
        }
    }
}
