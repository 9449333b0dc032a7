import Crypto
import _CryptoExtras
import Foundation

/// A tenant's APNs token-based authentication: the signing key Apple issued (a `.p8`,
/// P-256 in PKCS#8 PEM), its key id, the team id and the app's bundle id (`apns-topic`).
public struct APNsCredentials: Sendable, Equatable, Codable {
    /// The 10-character key id Apple shows for the key (`kid`).
    public var keyID: String
    /// The 10-character team id (`iss`).
    public var teamID: String
    /// The app's bundle id, sent as `apns-topic`.
    public var topic: String
    /// The endpoint of devices that registered without saying which.
    public var environment: APNsEnvironment
    /// The `.p8` key's PEM. Sealed at rest, masked when printed.
    public var privateKey: SecretValue

    /// Checks every field; the key must be a P-256 private key.
    public init(keyID: String, teamID: String, topic: String, environment: APNsEnvironment, privateKey: String) throws {
        guard Self.isAppleID(keyID) else { throw PushCredentialError.invalid("key id must be 10 letters or digits") }
        guard Self.isAppleID(teamID) else { throw PushCredentialError.invalid("team id must be 10 letters or digits") }
        guard Self.isBundleID(topic) else {
            throw PushCredentialError.invalid("topic must be a bundle id such as com.example.app")
        }
        guard (try? P256.Signing.PrivateKey(pemRepresentation: privateKey)) != nil else {
            throw PushCredentialError.invalid("the key is not a P-256 private key in PEM (.p8)")
        }
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.environment = environment
        self.privateKey = SecretValue(privateKey)
    }

    /// The signing key (parsed from the PEM checked at creation).
    public func signingKey() throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(pemRepresentation: privateKey.plaintext)
    }

    static func isAppleID(_ value: String) -> Bool {
        value.utf8.count == 10 && value.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) }
    }

    static func isBundleID(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        return (2...16).contains(parts.count) && value.utf8.count <= 155
            && parts.allSatisfy { part in
                !part.isEmpty && part.utf8.allSatisfy { ASCIIByte.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
            }
    }
}

/// A tenant's Firebase service account, as Google's console downloads it: the project and
/// the key the gateway signs RFC 7523 assertions with for an FCM access token.
public struct FCMCredentials: Sendable, Equatable, Codable {
    public var projectID: String
    /// The service account (`iss` of the assertion).
    public var clientEmail: String
    /// The key's id (`kid` of the assertion), when the file names one.
    public var privateKeyID: String?
    /// Where access tokens come from (`token_uri`; the assertion's audience).
    public var tokenURI: String
    /// The RSA private key's PEM. Sealed at rest, masked when printed.
    public var privateKey: SecretValue

    public init(projectID: String, clientEmail: String, privateKeyID: String?, tokenURI: String, privateKey: String)
        throws
    {
        guard !projectID.isEmpty, projectID.utf8.count <= 100,
            projectID.utf8.allSatisfy({ ASCIIByte.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") })
        else { throw PushCredentialError.invalid("project_id must be a Firebase project id") }
        guard clientEmail.contains("@"), clientEmail.utf8.count <= 320 else {
            throw PushCredentialError.invalid("client_email must be the service account's address")
        }
        guard let url = URL(string: tokenURI), PushEndpoint.isAllowed(url) else {
            throw PushCredentialError.invalid("token_uri must be an https URL (http only for loopback)")
        }
        guard (try? _RSA.Signing.PrivateKey(pemRepresentation: privateKey)) != nil else {
            throw PushCredentialError.invalid("private_key is not an RSA private key in PEM")
        }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
        self.privateKey = SecretValue(privateKey)
    }

    /// Reads a service-account JSON file (`type` `service_account`, `project_id`, `client_email`,
    /// `private_key`, `token_uri`; `private_key_id` when present). At most 16 KiB.
    public init(serviceAccountJSON data: Data) throws {
        guard data.count <= 16_384 else { throw PushCredentialError.invalid("the service account file is over 16 KiB") }
        guard case .object(let fields)? = try? JSONValue.decode(data) else {
            throw PushCredentialError.invalid("the service account file is not a JSON object")
        }
        func text(_ name: String) throws -> String {
            guard case .string(let value)? = fields[name], !value.isEmpty else {
                throw PushCredentialError.invalid("the service account file has no \(name)")
            }
            return value
        }
        guard try text("type") == "service_account" else {
            throw PushCredentialError.invalid("the file's type is not service_account")
        }
        let keyID: String? = if case .string(let id)? = fields["private_key_id"], !id.isEmpty { id } else { nil }
        try self.init(
            projectID: try text("project_id"), clientEmail: try text("client_email"), privateKeyID: keyID,
            tokenURI: try text("token_uri"), privateKey: try text("private_key"))
    }

    /// The signing key (parsed from the PEM checked at creation).
    public func signingKey() throws -> _RSA.Signing.PrivateKey {
        try _RSA.Signing.PrivateKey(pemRepresentation: privateKey.plaintext)
    }
}

/// One provider's credentials of a tenant.
public enum PushCredentials: Sendable, Equatable, Codable {
    case apns(APNsCredentials)
    case fcm(FCMCredentials)

    public var provider: PushProvider {
        switch self {
        case .apns: .apns
        case .fcm: .fcm
        }
    }
}

/// What provider credentials refuse.
public enum PushCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}

/// Which provider URLs the gateway calls: https, or plain http on a loopback host (fakes).
public enum PushEndpoint {
    public static func isAllowed(_ url: URL) -> Bool {
        guard let host = url.host, !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return LoopbackHost.contains(host)
        default: return false
        }
    }
}
