import Foundation
import NIOPosix

/// Sign-up (issue 63 §1-2): the register screen's values, then a code to each e-mail address and
/// phone number the account asks for, the account written only once every code came back.
extension JourneyEngine {
    /// A new account from the register screen: its values checked (each refusal beside its
    /// field), the sign-up bounds spent, the password hashed off the cooperative pool. Without an
    /// e-mail address or a phone number the user and its audit record (the user as actor) are
    /// written together and the person is signed in; with them, the account waits in the
    /// journey for the codes the courier sends (``verifySignUpCode``).
    func signUp(
        _ journey: inout Journey, _ values: [String: String], screen: JourneyScreen, settings: JourneySettings,
        address: String?, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        let withEmail = settings.identifiers.contains(.email)
        let withPhone = settings.identifiers.contains(.phone)
        let email = (values["email"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let phone = JourneyStep.phoneDigits(values["phone"] ?? "")
        // Without a username among the identifiers, the address (else the number) is the username.
        let typed = (values["username"] ?? "").trimmingCharacters(in: .whitespaces)
        let username = settings.identifiers.contains(.username) ? typed : withEmail ? email : phone
        let name = (values["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let password = values["password"] ?? ""
        var messages: [JourneyScreen.Message] = []
        if settings.identifiers.contains(.username), LocalUser.usernameProblem(username) != nil {
            messages.append(JourneyScreen.Message(field: "username", key: "journey.error.username"))
        }
        if withEmail, MailAddress.problem(email) != nil {
            messages.append(JourneyScreen.Message(field: "email", key: "journey.error.email"))
        }
        if withPhone, phone.range(of: JourneyStep.phonePattern, options: .regularExpression) == nil {
            messages.append(JourneyScreen.Message(field: "phone", key: "journey.error.phone"))
        }
        if name.count > 200 || ControlCharacters.held(in: name) {
            messages.append(JourneyScreen.Message(field: "name", key: "journey.error.name"))
        }
        // Without a password among the factors, the account signs up with a passkey instead.
        let withPassword = settings.factors.contains(.password)
        if withPassword, !LocalUser.passwordLengths.contains(password.count) {
            messages.append(
                JourneyScreen.Message(
                    field: "password", key: "journey.error.new-password",
                    values: ["min": String(LocalUser.passwordLengths.lowerBound)]))
        }
        let shown = screen.filled(["username": typed, "name": name, "email": email, "phone": phone])
        guard messages.isEmpty else { return .refused(shown.with(messages)) }
        let windows = FixedWindow(cache: cache, clock: clock)
        for (key, limit, window) in [
            ("signup:\(journey.tenantID):tenant", Self.signUpsPerTenantPerDay, Int64(86_400)),
            ("signup:\(journey.tenantID):address:\(CacheKey.escape(address ?? "-"))", settings.signUpsPerAddressPerHour,
                3_600),
        ] {
            if let retryAfter = try await windows.spend(key, limit: limit, window: window) {
                return throttled(shown, retryAfter, key: "journey.error.sign-ups")
            }
        }
        let hasher = auth.hasher
        let hash =
            withPassword ? try await NIOThreadPool.singleton.runIfActive { try hasher.hash(password) } : IdentityLinker.noPassword
        guard withEmail || withPhone || !withPassword else {
            let user = LocalUser(
                tenantID: journey.tenantID, username: username, name: name.isEmpty ? nil : name, passwordHash: hash)
            guard try await create(user, journey: journey, address: address) else {
                return .refused(shown.with([JourneyScreen.Message(field: "username", key: "journey.error.taken")]))
            }
            journey.amr = ["pwd"]
            return try await finishOfferingPasskey(&journey, user: user, settings: settings, onHostedPage: onHostedPage)
        }
        // A username someone holds is said at once (as without e-mail); whether the address or
        // the number is held is not: a code goes to a new one, a note to a known one (also when
        // it is the username), the screens are alike.
        if settings.identifiers.contains(.username),
            try await auth.users.user(tenantID: journey.tenantID, username: username) != nil
        {
            return .refused(shown.with([JourneyScreen.Message(field: "username", key: "journey.error.taken")]))
        }
        journey.pending = PendingAccount(
            username: username, name: name.isEmpty ? nil : name, email: withEmail ? email : nil,
            phone: withPhone ? phone : nil, passwordHash: hash)
        // The passkey's user handle names the account before it exists.
        if !withPassword { journey.pending?.subject = RandomUUID.lowercased() }
        guard withEmail || withPhone else { return try await move(&journey, to: .createPasskey, settings: settings) }
        return try await sendFirstSignUpCode(&journey, settings: settings, address: address, screen: shown)
    }

    private func sendFirstSignUpCode(
        _ journey: inout Journey, settings: JourneySettings, address: String?, screen: JourneyScreen
    ) async throws -> JourneyOutcome {
        if let refused = try await sendSignUpCode(journey, settings: settings, address: address, screen: screen) {
            return refused
        }
        return try await move(&journey, to: .code, settings: settings)
    }

    /// Sends the code the pending account waits for (or the note to a known address or number);
    /// nil when queued, else `screen` refused or throttled.
    func sendSignUpCode(
        _ journey: Journey, settings: JourneySettings, address: String?, screen: JourneyScreen
    ) async throws -> JourneyOutcome? {
        guard let courier, let pending = journey.pending, let (channel, identifier) = pending.awaiting.map({ ($0.channel, $0.identifier) }) else {
            throw JourneyError.notFound
        }
        let holders =
            channel == .email
            ? try await auth.users.users(tenantID: journey.tenantID, email: identifier, limit: 1)
            : try await auth.users.users(tenantID: journey.tenantID, phone: identifier, limit: 1)
        // An address or number that is the username, held by its account, is known too.
        let named = try await auth.users.user(tenantID: journey.tenantID, username: pending.username)
        let known = !holders.isEmpty || named != nil
        let sent = try await courier.send(
            channel == .email ? .verifyEmail : .verifyPhone, known ? .accountExists : .code,
            tenantID: journey.tenantID, to: identifier, channel: channel == .email ? .email : .sms,
            locale: journey.locale, settings: settings, address: address)
        return refusal(sent, screen: screen, field: channel.rawValue)
    }

    /// The code screen's submit during a sign-up: the right code for the channel the account
    /// waits for marks it verified; the next channel's code goes out, or, with every one back,
    /// the account is created (its address and number verified by them) and the person signed
    /// in. A wrong code, a used or expired one, and any code for a known address or number
    /// (none was sent) are refused alike.
    func verifySignUpCode(
        _ journey: inout Journey, _ code: String, screen: JourneyScreen, settings: JourneySettings,
        address: String?, onHostedPage: Bool
    ) async throws -> JourneyOutcome {
        guard let courier, var pending = journey.pending, let (channel, identifier) = pending.awaiting.map({ ($0.channel, $0.identifier) }) else {
            throw JourneyError.notFound
        }
        let typed = code.trimmingCharacters(in: .whitespaces)
        guard typed.range(of: JourneyStep.codePattern, options: .regularExpression) != nil,
            try await courier.codes.check(
                tenantID: journey.tenantID, purpose: channel == .email ? .verifyEmail : .verifyPhone,
                identifier: identifier, code: typed) == .accepted
        else { return Self.wrongCode(screen, sentTo: identifier) }
        pending.verified.append(channel)
        journey.pending = pending
        if let next = pending.awaiting {
            let screen = Self.sent(offered(JourneyStep.code.screen(settings), settings: settings), to: next.identifier)
            if let refused = try await sendSignUpCode(journey, settings: settings, address: address, screen: screen) {
                try await save(journey)
                return refused
            }
            return try await move(&journey, to: .code, settings: settings)
        }
        // Every code back: an account without a password makes its passkey, then is written.
        guard pending.subject == nil else { return try await move(&journey, to: .createPasskey, settings: settings) }
        var user = LocalUser(
            tenantID: journey.tenantID, username: pending.username, name: pending.name, email: pending.email,
            phone: pending.phone, passwordHash: pending.passwordHash)
        (user.emailVerified, user.phoneVerified) = (pending.verified.contains(.email), pending.verified.contains(.phone))
        guard try await create(user, journey: journey, address: address) else {
            return .refused(Self.sent(screen, to: identifier).with([JourneyScreen.Message(key: "journey.error.taken")]))
        }
        journey.pending = nil  // written: what comes next is the account's own
        journey.amr = ["pwd"]
        return try await finishOfferingPasskey(&journey, user: user, settings: settings, onHostedPage: onHostedPage)
    }
}
