import Foundation

/// An Android app a tenant's domain vouches for in `/.well-known/assetlinks.json`: its
/// package name and the SHA-256 fingerprints of the certificates it is signed with, written
/// as `keytool -list` and the Play Console print them (`14:6D:E9:…`, 32 upper-case hex pairs).
public struct AndroidApp: Sendable, Equatable, Codable {
    /// How many signing-certificate fingerprints one app lists at most (key rotation keeps a few).
    public static let maxFingerprints = 10

    /// The application id, e.g. `com.acme.superapp`.
    public var packageName: String
    /// Upper-case, colon-separated SHA-256 fingerprints.
    public var sha256CertFingerprints: [String]

    public init(packageName: String, sha256CertFingerprints: [String]) {
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }

    /// The app checked and canonical (fingerprints upper-case); throws
    /// ``TenantDomainError/invalidAndroidApp(_:)`` naming what is wrong.
    public static func checked(
        packageName: String, fingerprints: [String]
    ) throws(TenantDomainError) -> AndroidApp {
        guard isPackageName(packageName) else {
            throw .invalidAndroidApp(
                "\"\(packageName.prefix(80))\" is not a package name (e.g. com.acme.app: at least two segments "
                    + "of letters, digits and _, each starting with a letter; at most 255 characters)")
        }
        guard (1 ... maxFingerprints).contains(fingerprints.count) else {
            throw .invalidAndroidApp("\(packageName) needs 1 to \(maxFingerprints) SHA-256 certificate fingerprints")
        }
        var canonical: [String] = []
        for print in fingerprints {
            guard let bytes = fingerprintBytes(print) else {
                throw .invalidAndroidApp(
                    "\"\(print.prefix(100))\" is not a SHA-256 fingerprint (32 hex pairs separated by ':')")
            }
            let text = bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
            if !canonical.contains(text) { canonical.append(text) }
        }
        return AndroidApp(packageName: packageName, sha256CertFingerprints: canonical)
    }

    /// Parses `package=FINGERPRINT` (what `gatewayctl domain add --android-app` takes).
    public static func parse(_ argument: String) throws(TenantDomainError) -> AndroidApp {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else {
            throw .invalidAndroidApp("expected PACKAGE=SHA256_FINGERPRINT, e.g. com.acme.app=14:6D:E9:…")
        }
        return try checked(packageName: parts[0], fingerprints: [parts[1]])
    }

    /// The origins the app's WebAuthn ceremonies carry on Android (Credential Manager):
    /// `android:apk-key-hash:` and the base64url SHA-256 of each signing certificate. A tenant
    /// lists them in `passkeys.origins`.
    public var passkeyOrigins: [String] {
        sha256CertFingerprints.compactMap { Self.fingerprintBytes($0) }.map {
            "android:apk-key-hash:" + Base64URL.encode($0)
        }
    }

    private static func isPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && segments.count >= 2 && segments.allSatisfy { segment in
            guard let first = segment.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
                return false
            }
            return segment.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0" ... "9").contains($0) || $0 == "_")
            }
        }
    }

    private static func fingerprintBytes(_ text: String) -> [UInt8]? {
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        guard text.utf8.count == 95, pairs.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.utf8.count == 2, pair.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
