import Foundation

/// What the journeys send through the courier (issue 63 §4-5): codes that verify an e-mail
/// address or a phone number, or sign a person in, bounded per identifier, client and tenant
/// (and, for SMS, to the tenant's allowed countries within a budget per country and hour),
/// queued in the durable outbox. The caller says what goes out: a code, the note to an
/// identifier an account already holds (sign-up), or nothing (a sign-in for an identifier no
/// account holds); the bounds are spent alike, so the answers do not tell them apart.
public struct JourneyCourier: Sendable {
    /// How a sending went.
    public enum Sent: Sendable, Equatable {
        /// Queued (or nothing to send: the caller cannot tell).
        case queued
        /// A bound refused it for this long.
        case throttled(Duration)
        /// An SMS to a number outside the tenant's allowed countries, or no SMS provider set:
        /// nothing is sent.
        case countryNotAllowed
    }

    /// What goes to the identifier.
    public enum Content: Sendable, Equatable {
        /// A new code for the purpose (the last one void).
        case code
        /// The note that an account already holds it (sign-up).
        case accountExists
        /// Nothing reaches anybody: the bounds are spent and the message is written all the same,
        /// but already expired, so it ends `expired` at its claim and is never sent (its purpose
        /// ends in ``unheldSuffix``).
        case nothing
    }

    /// What ends the purpose of a message written for an identifier nobody holds (never sent).
    public static let unheldSuffix = ".unheld"

    public let codes: OneTimeCodes
    private let outbox: any CourierOutbox
    private let cache: any Cache
    private let sealer: SecretSealer
    private let clock: WallClock
    private let tenantName: @Sendable (_ tenantID: String) -> String?
    private let courierSettings: @Sendable (_ tenantID: String) async throws -> CourierSettings?
    private let wording: @Sendable (_ tenantID: String) async throws -> [String: [String: String]]

    /// - Parameters:
    ///   - tenantName: the name messages give the tenant (its display name).
    ///   - courierSettings: the tenant's courier settings (SMS: the allowed countries, the
    ///     budget per country).
    ///   - wording: the tenant's `courier.*` localization overrides by language (none: the
    ///     built-in texts; a failure to read them sends the built-in texts).
    public init(
        codes: OneTimeCodes, outbox: any CourierOutbox, cache: any Cache, sealer: SecretSealer, clock: WallClock,
        tenantName: @escaping @Sendable (_ tenantID: String) -> String?,
        courierSettings: @escaping @Sendable (_ tenantID: String) async throws -> CourierSettings?,
        wording: @escaping @Sendable (_ tenantID: String) async throws -> [String: [String: String]] = { _ in [:] }
    ) {
        self.wording = wording
        self.tenantName = tenantName
        self.courierSettings = courierSettings
        self.codes = codes
        self.outbox = outbox
        self.cache = cache
        self.sealer = sealer
        self.clock = clock
    }

    /// Whether the tenant's courier sends on `channel`: an SMTP relay for e-mail, an SMS
    /// provider for SMS.
    public func sends(on channel: CourierMessage.Channel, tenantID: String) async throws -> Bool {
        let settings = try await courierSettings(tenantID)
        return switch channel {
        case .email: settings?.smtp != nil
        case .sms: settings?.sms != nil
        }
    }

    /// Sends `content` for `purpose` to `identifier` (an e-mail address, lowercased, or an E.164
    /// number) over `channel`, in `locale`, within the tenant's bounds.
    public func send(
        _ purpose: OneTimeCodes.Purpose, _ content: Content, tenantID: String, to identifier: String,
        channel: CourierMessage.Channel, locale: String, settings: JourneySettings, address: String?
    ) async throws -> Sent {
        let windows = FixedWindow(cache: cache, clock: clock)
        if channel == .sms {
            // Numbers the tenant does not send to get nothing, whoever holds them (SMS pumping).
            guard let sms = try await courierSettings(tenantID)?.sms, let country = sms.allowedCountry(of: identifier)
            else { return .countryNotAllowed }
            if let retryAfter = try await windows.spend(
                "otb:\(tenantID):country:\(country)", limit: sms.perCountryPerHour, window: 3_600)
            {
                return .throttled(retryAfter)
            }
        }
        var limits = CodeBudget.Limits()
        limits.perIdentifierPerHour = settings.codesPerIdentifierPerHour
        let budget = CodeBudget(cache: cache, sealer: sealer, clock: clock, limits: limits)
        if case .refused(_, let retryAfter) = try await budget.spend(
            tenantID: tenantID, identifier: identifier, address: address)
        {
            return .throttled(retryAfter)
        }
        let name = tenantName(tenantID) ?? tenantID
        let overrides = (try? await wording(tenantID)) ?? [:]
        let message: CourierTemplates.Mail
        switch content {
        case .accountExists:
            message = CourierTemplates.accountExists(
                tenantName: name, channel: channel, locale: locale, overrides: overrides)
        case .code, .nothing:
            // For nobody (no account holds the identifier) a code is issued and its message
            // written all the same, so the work, and the time, is a real sending's; the code
            // signs nobody in, and the message is written expired: it is never sent.
            let code = try await codes.issue(tenantID: tenantID, purpose: purpose, identifier: identifier)
            message = CourierTemplates.code(
                code, purpose: purpose, tenantName: name, channel: channel, locale: locale, overrides: overrides)
        }
        let now = clock.now()
        let unheld = content == .nothing
        try await outbox.enqueue(
            CourierMessage(
                tenantID: tenantID, id: "cm_" + Base64URL.random(byteCount: 16), channel: channel,
                purpose: purpose.rawValue + (unheld ? Self.unheldSuffix : ""), to: identifier,
                subject: message.subject, text: message.text, createdAt: now,
                expiresAt: unheld ? now : now.addingTimeInterval(Double(codes.policy.lifetime.components.seconds))))
        return .queued
    }
}
