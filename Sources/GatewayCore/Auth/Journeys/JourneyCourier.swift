import Foundation

/// What the journeys send through the courier (issue 63 §4-5): a code that verifies an e-mail
/// address, bounded per address, client and tenant, queued in the durable outbox. An address an
/// account already holds gets a note instead of a code (sign in, or recover), so a sign-up
/// answers alike whether the address is known or not, and no code exists to take it over.
public struct JourneyCourier: Sendable {
    /// How a sending went.
    public enum Sent: Sendable, Equatable {
        /// Queued (a code, or the note to a known address: the caller cannot tell).
        case queued
        /// A bound refused it for this long.
        case throttled(Duration)
    }

    public let codes: OneTimeCodes
    private let outbox: any CourierOutbox
    private let cache: any Cache
    private let sealer: SecretSealer
    private let clock: WallClock
    private let tenantName: @Sendable (_ tenantID: String) -> String?

    /// - Parameter tenantName: the name mails give the tenant (its display name).
    public init(
        codes: OneTimeCodes, outbox: any CourierOutbox, cache: any Cache, sealer: SecretSealer, clock: WallClock,
        tenantName: @escaping @Sendable (_ tenantID: String) -> String?
    ) {
        self.tenantName = tenantName
        self.codes = codes
        self.outbox = outbox
        self.cache = cache
        self.sealer = sealer
        self.clock = clock
    }

    /// Sends a verification code to `email` (lowercased), or the note when `known` (an account
    /// holds it), in `locale`, within the tenant's bounds.
    public func sendVerification(
        tenantID: String, email: String, known: Bool, locale: String, settings: JourneySettings, address: String?
    ) async throws -> Sent {
        let tenantName = tenantName(tenantID) ?? tenantID
        var limits = CodeBudget.Limits()
        limits.perIdentifierPerHour = settings.codesPerIdentifierPerHour
        let budget = CodeBudget(cache: cache, sealer: sealer, clock: clock, limits: limits)
        if case .refused(_, let retryAfter) = try await budget.spend(tenantID: tenantID, identifier: email, address: address) {
            return .throttled(retryAfter)
        }
        let mail: CourierTemplates.Mail
        if known {
            mail = CourierTemplates.accountExists(tenantName: tenantName, locale: locale)
        } else {
            let code = try await codes.issue(tenantID: tenantID, purpose: .verifyEmail, identifier: email)
            mail = CourierTemplates.verificationCode(code, tenantName: tenantName, locale: locale)
        }
        let now = clock.now()
        try await outbox.enqueue(
            CourierMessage(
                tenantID: tenantID, id: "cm_" + Base64URL.random(byteCount: 16), channel: .email,
                purpose: OneTimeCodes.Purpose.verifyEmail.rawValue, to: email, subject: mail.subject, text: mail.text,
                createdAt: now,
                expiresAt: now.addingTimeInterval(Double(codes.policy.lifetime.components.seconds))))
        return .queued
    }
}
