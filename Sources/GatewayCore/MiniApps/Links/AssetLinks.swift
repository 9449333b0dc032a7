import Foundation

/// Builds `/.well-known/assetlinks.json` for one domain (Digital Asset Links): each Android
/// app of the domain may open its links (`handle_all_urls`, Android App Links) and use the
/// credentials made for it, passkeys included (`get_login_creds`, Credential Manager).
public enum AssetLinks {
    /// The relations every app of a domain is granted.
    public static let relations = [
        "delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds",
    ]

    struct Statement: Encodable {
        struct Target: Encodable {
            var namespace = "android_app"
            var package_name: String
            var sha256_cert_fingerprints: [String]
        }

        var relation: [String]
        var target: Target
    }

    /// The JSON array (sorted keys) for `domain`: one statement per Android app, `[]` for none.
    public static func document(for domain: TenantDomain) throws -> Data {
        let statements = domain.androidApps.map {
            Statement(
                relation: relations,
                target: .init(package_name: $0.packageName, sha256_cert_fingerprints: $0.sha256CertFingerprints))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(statements)
    }
}
