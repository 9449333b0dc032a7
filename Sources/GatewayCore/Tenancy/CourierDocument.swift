/// A tenant's ``CourierSettings`` as documents carry them: the admin API's answer (secrets
/// masked), an export (sealed or revealed), the store's column (sealed under the tenant and
/// the field). Members are the admin API's `courier` object (docs/journeys.md).
public struct CourierDocument: Codable, Sendable, Equatable {
    public struct SMTP: Codable, Sendable, Equatable {
        public var url: String
        public var from: String
        public var startTLS: SMTPRelay.Security?
        public var username: String?
        public var password: SecretDocument?
    }

    public struct SMS: Codable, Sendable, Equatable {
        public var provider: SMSSettings.Provider
        public var url: String
        public var accountSid: String?
        public var authToken: SecretDocument?
        public var from: String
        public var allowedCountries: [String]
        public var perCountryPerHour: Int?
    }

    public var smtp: SMTP?
    public var sms: SMS?

    /// The document of `settings`, secrets shown as `presentation` says.
    public init(
        _ settings: CourierSettings, tenantID: String, secrets presentation: SecretPresentation, sealer: SecretSealer?
    ) throws {
        func secret(_ value: SecretValue?, _ field: TenantField) throws -> SecretDocument? {
            try SecretDocument.presenting(value, field: field, tenantID: tenantID, as: presentation, sealer: sealer)
        }
        smtp = try settings.smtp.map {
            SMTP(
                url: $0.url, from: $0.from, startTLS: $0.startTLS, username: $0.username,
                password: try secret($0.password, .courierSMTPPassword))
        }
        sms = try settings.sms.map {
            SMS(
                provider: $0.provider, url: $0.url, accountSid: $0.accountSid,
                authToken: try secret($0.authToken, .courierSMSAuthToken), from: $0.from,
                allowedCountries: $0.allowedCountries, perCountryPerHour: $0.perCountryPerHour)
        }
    }

    /// The settings this document describes, each secret opened by `open`.
    public func settings(
        opening open: (SecretDocument, TenantField) throws -> SecretValue
    ) throws -> CourierSettings {
        CourierSettings(
            smtp: try smtp.map {
                SMTPRelay(
                    url: $0.url, from: $0.from, startTLS: $0.startTLS ?? .required, username: $0.username,
                    password: try $0.password.map { try open($0, .courierSMTPPassword) })
            },
            sms: try sms.map {
                SMSSettings(
                    provider: $0.provider, url: $0.url, accountSid: $0.accountSid,
                    authToken: try $0.authToken.map { try open($0, .courierSMSAuthToken) }, from: $0.from,
                    allowedCountries: $0.allowedCountries,
                    perCountryPerHour: $0.perCountryPerHour ?? SMSSettings.defaultPerCountryPerHour)
            })
    }
}
