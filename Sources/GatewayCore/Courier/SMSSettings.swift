import Foundation

/// A tenant's SMS provider (issue 63 §4): a Twilio-compatible Messages API, or the tenant's
/// own service behind a webhook signed with HMAC. Messages go only to the countries listed,
/// within a budget per country and hour (SMS pumping).
public struct SMSSettings: Sendable, Equatable, Codable {
    public enum Provider: String, Sendable, Codable, CaseIterable {
        /// `POST {url}/2010-04-01/Accounts/{accountSid}/Messages.json`, HTTP Basic with the
        /// account SID and auth token.
        case twilio
        /// `POST {url}` with `{"to", "from", "text", "id"}`, signed with HMAC-SHA256 under the
        /// auth token (docs/journeys.md).
        case webhook
    }

    public var provider: Provider
    /// The API's base (Twilio: `https://api.twilio.com`) or the webhook's URL: https, plain
    /// http only on loopback (fakes).
    public var url: String
    /// Twilio's account SID (required for `twilio`).
    public var accountSid: String?
    /// Twilio's auth token, or the webhook's HMAC key. Sealed at rest, write-only.
    public var authToken: SecretValue?
    /// The sender: an E.164 number, or an alphanumeric sender id of 1-11 characters.
    public var from: String
    /// Country calling codes a message may go to (`81`, `1`); a number elsewhere gets nothing.
    public var allowedCountries: [String]
    /// Messages to one country calling code in an hour; the next waits for the hour.
    public var perCountryPerHour: Int

    public static let perCountryPerHourRange: ClosedRange<Int> = 1...1_000_000
    public static let defaultPerCountryPerHour = 1_000

    public init(
        provider: Provider, url: String, accountSid: String? = nil, authToken: SecretValue? = nil, from: String,
        allowedCountries: [String], perCountryPerHour: Int = SMSSettings.defaultPerCountryPerHour
    ) {
        self.provider = provider
        self.url = url
        self.accountSid = accountSid
        self.authToken = authToken
        self.from = from
        self.allowedCountries = allowedCountries
        self.perCountryPerHour = perCountryPerHour
    }

    /// The calling code of `number` (E.164) among ``allowedCountries`` (longest first), or nil:
    /// no message goes there.
    public func allowedCountry(of number: String) -> String? {
        guard number.hasPrefix("+") else { return nil }
        let digits = number.dropFirst()
        return allowedCountries.sorted { $0.count > $1.count }.first { digits.hasPrefix($0) }
    }

    /// Everything wrong with these settings, each naming its tenant field (`courier.sms.*`).
    public var problems: [TenantValidationError] {
        var found: [TenantValidationError] = []
        func refuse(_ field: TenantField, _ problem: String) { found.append(.init(field: field, problem: problem)) }
        let endpoint = URL(string: url).map { $0.query == nil && $0.user == nil && PushEndpoint.isAllowed($0) }
        if endpoint != true || url.utf8.count > 2048 {
            refuse(.courierSMSURL, "must be an https URL (http only on loopback) without query or credentials")
        }
        if provider == .twilio {
            if let accountSid {
                if !(1...64).contains(accountSid.count) || !accountSid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                    refuse(.courierSMSAccountSid, "must be 1-64 letters and digits")
                }
            } else {
                refuse(.courierSMSAccountSid, "must be set for the twilio provider")
            }
        }
        if let authToken {
            if !(16...1024).contains(authToken.plaintext.utf8.count) { refuse(.courierSMSAuthToken, "must be 16-1024 characters") }
        } else {
            refuse(.courierSMSAuthToken, "must be set (Twilio's auth token, or the webhook's HMAC key)")
        }
        let senderID = (1...11).contains(from.count)
            && from.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") } && from.contains(where: \.isLetter)
        if from.range(of: JourneyStep.phonePattern, options: .regularExpression) == nil, !senderID {
            refuse(.courierSMSFrom, "must be an E.164 number (+81…) or a sender id of 1-11 letters and digits")
        }
        if allowedCountries.isEmpty || allowedCountries.count > 250 {
            refuse(.courierSMSAllowedCountries, "must name 1-250 country calling codes")
        }
        for code in allowedCountries where code.range(of: "^[1-9][0-9]{0,3}$", options: .regularExpression) == nil {
            refuse(.courierSMSAllowedCountries, "holds \(TenantValidationError.quote(code)), not a calling code of 1-4 digits (1, 81, or 1242 for a NANP area)")
        }
        if let repeated = allowedCountries.firstRepeated() { refuse(.courierSMSAllowedCountries, "names \(repeated) twice") }
        if !Self.perCountryPerHourRange.contains(perCountryPerHour) {
            refuse(.courierSMSPerCountryPerHour, "must be between 1 and 1000000, got \(perCountryPerHour)")
        }
        return found
    }
}
