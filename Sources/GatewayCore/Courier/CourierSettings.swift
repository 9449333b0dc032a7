/// How a tenant's messages to people go out (issue 63 §4): e-mail through its SMTP relay, SMS
/// through its provider. Either may be missing: codes for that channel are then not offered.
public struct CourierSettings: Sendable, Equatable, Codable {
    public var smtp: SMTPRelay?
    public var sms: SMSSettings?

    public init(smtp: SMTPRelay? = nil, sms: SMSSettings? = nil) {
        self.smtp = smtp
        self.sms = sms
    }

    /// Everything wrong with the settings, each naming its tenant field.
    public var problems: [TenantValidationError] {
        (smtp?.problems ?? []) + (sms?.problems ?? [])
    }
}
