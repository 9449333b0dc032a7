/// What a device registration must satisfy: a token of the provider's shape and bounded
/// length, short single-token texts, and an APNs environment only for APNs.
public enum DeviceRules {
    /// The most bytes of an FCM token (they run near 160; the API gives no maximum).
    public static let maxFCMTokenBytes = 4_096
    /// APNs tokens: hex of 32–100 bytes (Apple: "device tokens can vary in length").
    public static let apnsTokenHexLength = 64...200

    /// Throws ``DeviceError/invalid(_:)`` naming the first rule `device` breaks.
    public static func check(_ device: PushDevice) throws(DeviceError) {
        switch device.provider {
        case .apns:
            guard apnsTokenHexLength.contains(device.token.utf8.count), device.token.utf8.allSatisfy(ASCIIByte.isHexDigit)
            else { throw .invalid("an APNs token is 64-200 hexadecimal digits") }
        case .fcm:
            guard (1...maxFCMTokenBytes).contains(device.token.utf8.count), device.token.utf8.allSatisfy(ASCIIByte.isVisible)
            else { throw .invalid("an FCM token is 1-\(maxFCMTokenBytes) visible ASCII characters") }
            if device.apnsEnvironment != nil { throw .invalid("apnsEnvironment is for APNs devices only") }
        }
        if let locale = device.locale, !isLocale(locale) {
            throw .invalid("locale must be a BCP 47 tag of 2-35 letters, digits and '-' (e.g. ja, pt-BR)")
        }
        if let version = device.appVersion,
            !(1...64).contains(version.utf8.count) || !version.utf8.allSatisfy(ASCIIByte.isVisible)
        {
            throw .invalid("appVersion must be 1-64 visible ASCII characters")
        }
    }

    /// A language tag: a 2-8 letter primary subtag, then subtags of 1-8 letters or digits.
    public static func isLocale(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count <= 35, let primary = parts.first, (2...8).contains(primary.count),
            primary.utf8.allSatisfy(ASCIIByte.isLetter)
        else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.utf8.allSatisfy(ASCIIByte.isLetterOrDigit) }
    }
}
