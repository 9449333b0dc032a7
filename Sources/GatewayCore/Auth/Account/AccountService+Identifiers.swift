import Foundation

/// E-mail addresses and phone numbers on My account: a new one is the account's only once the
/// code sent to it comes back (and it is then verified); one is removed only while the account
/// keeps a way in the tenant signs people in with.
extension AccountService {
    /// Sends a code proving `value` (an e-mail address, or an E.164 number) to it, within the
    /// courier's bounds. When another account holds it, that note goes instead of a code, and
    /// the answer is the same. Returns the value as it will be stored (an address lowercased, a
    /// number without spaces).
    public func sendCode(
        _ channel: JourneySettings.Channel, to typed: String, caller: AccountCaller, settings: JourneySettings,
        locale: String
    ) async throws -> String {
        guard let courier, try await courier.sends(on: Self.courierChannel(channel), tenantID: caller.tenantID) else {
            throw AccountError.channelUnavailable
        }
        let user = try await account(of: caller)
        let value = try Self.normalized(typed, channel)
        if Self.value(of: user, channel) == value, Self.verified(user, channel) {
            throw AccountError.invalid("this is already the account's verified \(Self.noun(channel))")
        }
        let taken = try await holders(of: value, channel, tenantID: caller.tenantID).contains { $0.subject != user.subject }
        switch try await courier.send(
            Self.purpose(channel), taken ? .accountExists : .code, tenantID: caller.tenantID, to: value,
            channel: Self.courierChannel(channel), locale: locale, settings: settings, address: caller.address)
        {
        case .queued: return value
        case .throttled(let retryAfter): throw AccountError.throttled(retryAfter: retryAfter)
        case .countryNotAllowed: throw AccountError.channelUnavailable
        }
    }

    /// Checks the code sent to `value`; right, the value becomes the account's (verified),
    /// replacing the one it had, recorded in the audit trail.
    public func verify(
        _ channel: JourneySettings.Channel, value typed: String, code: String, caller: AccountCaller
    ) async throws -> AccountOverview {
        guard let courier else { throw AccountError.channelUnavailable }
        let user = try await account(of: caller)
        let value = try Self.normalized(typed, channel)
        guard code.range(of: JourneyStep.codePattern, options: .regularExpression) != nil else {
            throw AccountError.invalid("the code is 6 digits")
        }
        switch try await courier.codes.check(
            tenantID: caller.tenantID, purpose: Self.purpose(channel), identifier: value, code: code)
        {
        case .accepted: break
        case .wrong(let triesLeft): throw AccountError.wrongCode(triesLeft: triesLeft)
        case .noCode: throw AccountError.wrongCode(triesLeft: 0)
        }
        if try await holders(of: value, channel, tenantID: caller.tenantID).contains(where: { $0.subject != user.subject }) {
            throw AccountError.identifierTaken
        }
        let written = try await write(
            caller, username: user.username,
            note: AuditNote(action: "verify-\(channel.rawValue)", summary: "proved a new \(Self.noun(channel)) by a code")
        ) { Self.setting(channel, of: $0, to: value, verified: true) }
        return AccountOverview(user: written, sessions: try await sessions(of: caller))
    }

    /// Removes the account's e-mail address or phone number, unless the account would keep no
    /// identifier the tenant signs people in with (``AccountError/identifierRequired``).
    public func remove(
        _ channel: JourneySettings.Channel, caller: AccountCaller, settings: JourneySettings
    ) async throws -> AccountOverview {
        let user = try await account(of: caller)
        guard Self.value(of: user, channel) != nil else {
            throw AccountError.invalid("the account has no \(Self.noun(channel))")
        }
        let kept = settings.identifiers.filter { identifier in
            switch identifier {
            case .username: true
            case .email: channel != .email && user.email != nil
            case .phone: channel != .phone && user.phone != nil
            }
        }
        guard !kept.isEmpty else { throw AccountError.identifierRequired }
        let written = try await write(
            caller, username: user.username,
            note: AuditNote(action: "remove-\(channel.rawValue)", summary: "removed the \(Self.noun(channel))")
        ) { Self.setting(channel, of: $0, to: nil, verified: false) }
        return AccountOverview(user: written, sessions: try await sessions(of: caller))
    }

    /// The value as stored: an e-mail address trimmed and lowercased, a phone number without
    /// the spaces, hyphens, brackets and dots people write it with; refused when it is not one.
    static func normalized(_ typed: String, _ channel: JourneySettings.Channel) throws -> String {
        let trimmed = typed.trimmingCharacters(in: .whitespaces)
        switch channel {
        case .email:
            let address = trimmed.lowercased()
            guard MailAddress.problem(address) == nil else { throw AccountError.invalid("not one e-mail address") }
            return address
        case .phone:
            let number = JourneyStep.phoneDigits(trimmed)
            guard number.range(of: JourneyStep.phonePattern, options: .regularExpression) != nil else {
                throw AccountError.invalid("a phone number is E.164: +, a country code and at most 15 digits in all")
            }
            return number
        }
    }

    private func holders(
        of value: String, _ channel: JourneySettings.Channel, tenantID: String
    ) async throws -> [LocalUser] {
        switch channel {
        case .email: try await auth.users.users(tenantID: tenantID, email: value, limit: 2)
        case .phone: try await auth.users.users(tenantID: tenantID, phone: value, limit: 2)
        }
    }

    /// `user` with its e-mail address or phone number set to `value`, verified or not.
    static func setting(
        _ channel: JourneySettings.Channel, of user: LocalUser, to value: String?, verified: Bool
    ) -> LocalUser {
        var changed = user
        switch channel {
        case .email: (changed.email, changed.emailVerified) = (value, verified)
        case .phone: (changed.phone, changed.phoneVerified) = (value, verified)
        }
        return changed
    }

    static func value(of user: LocalUser, _ channel: JourneySettings.Channel) -> String? {
        channel == .email ? user.email : user.phone
    }

    static func verified(_ user: LocalUser, _ channel: JourneySettings.Channel) -> Bool {
        channel == .email ? user.emailVerified : user.phoneVerified
    }

    static func noun(_ channel: JourneySettings.Channel) -> String {
        channel == .email ? "e-mail address" : "phone number"
    }

    static func purpose(_ channel: JourneySettings.Channel) -> OneTimeCodes.Purpose {
        channel == .email ? .verifyEmail : .verifyPhone
    }

    static func courierChannel(_ channel: JourneySettings.Channel) -> CourierMessage.Channel {
        channel == .email ? .email : .sms
    }
}
