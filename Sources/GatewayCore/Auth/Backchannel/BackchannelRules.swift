import Foundation

/// The bounds of backchannel authentication (issue 50): what a request may say and how often.
public enum BackchannelRules {
    /// `grant_type` at the token endpoint (CIBA §10.1).
    public static let grantType = "urn:openid:params:grant-type:ciba"
    /// A binding message: 1-64 characters of letters, digits, spaces and `-_.,:#/()`, so it
    /// reads the same on a terminal and in a notification.
    public static let bindingMessageMaxLength = 64
    public static let userCodeMaxLength = 64
    public static let hintMaxLength = 4_096
    public static let notificationTokenMaxLength = 1_024
    /// How long a request lives without `requested_expiry`, and the longest it may ask for.
    public static let defaultExpirySeconds = 120
    public static let expiryRange = 10...600
    /// Seconds between polls (CIBA §7.3 default), and what each `slow_down` adds.
    public static let pollInterval = 5
    public static let slowDownStep = 5
    /// Requests per user per minute, and per client per minute, counted by every replica.
    public static let perUserPerMinute = 5
    public static let perClientPerMinute = 600
    /// Pending requests one user may have at once.
    public static let maxPendingPerUser = 10

    /// `acr_values` that ask for a step-up at the approval: the password again, a TOTP code,
    /// or one of the user's passkeys (phishing-resistant; it satisfies the other two as well).
    public static let passwordACR = "urn:superapp-gateway:acr:pwd"
    public static let totpACR = "urn:superapp-gateway:acr:otp"
    public static let passkeyACR = "urn:superapp-gateway:acr:passkey"
    public static let supportedACRValues = [passwordACR, totpACR, passkeyACR]

    /// Whether `message` is a binding message this gateway shows.
    public static func isValidBindingMessage(_ message: String) -> Bool {
        guard (1...bindingMessageMaxLength).contains(message.count) else { return false }
        return message.unicodeScalars.allSatisfy { scalar in
            CharacterSet.letters.contains(scalar) || CharacterSet.decimalDigits.contains(scalar)
                || " -_.,:#/()".unicodeScalars.contains(scalar)
        }
    }
}
