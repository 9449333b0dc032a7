import Crypto
import Foundation

/// Provider credentials as operators read them (`gatewayctl push apns|fcm show --json`, the
/// admin API): the private key masked, with a short fingerprint that tells one key from another
/// without revealing it.
public struct PushCredentialDocument: Sendable, Codable, Equatable {
    public var provider: String
    public var keyID: String?
    public var teamID: String?
    public var topic: String?
    public var environment: String?
    public var projectID: String?
    public var clientEmail: String?
    public var tokenURI: String?
    /// `(sealed; --reveal to print)`, or the PEM itself when revealed (the database path only).
    public var privateKey: String
    /// `sha256:` and the first 12 hex digits of the PEM's SHA-256.
    public var keyFingerprint: String

    /// What stands for the private key unless it is revealed.
    public static let masked = "(sealed; --reveal to print)"

    public init(_ credentials: PushCredentials, reveal: Bool = false) {
        provider = credentials.provider.rawValue
        let key: SecretValue
        switch credentials {
        case .apns(let apns):
            keyID = apns.keyID
            teamID = apns.teamID
            topic = apns.topic
            environment = apns.environment.rawValue
            key = apns.privateKey
        case .fcm(let fcm):
            projectID = fcm.projectID
            clientEmail = fcm.clientEmail
            keyID = fcm.privateKeyID
            tokenURI = fcm.tokenURI
            key = fcm.privateKey
        }
        privateKey = reveal ? key.plaintext : Self.masked
        keyFingerprint =
            "sha256:" + SHA256.hash(data: Data(key.plaintext.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// `name: value` lines for the text output.
    public var lines: [String] {
        let fields: [(String, String?)] = [
            ("provider", provider), ("key id", keyID), ("team id", teamID), ("topic", topic),
            ("environment", environment), ("project", projectID), ("client email", clientEmail),
            ("token uri", tokenURI), ("private key", privateKey), ("key fingerprint", keyFingerprint),
        ]
        return fields.compactMap { name, value in value.map { "\(name): \($0)" } }
    }
}

/// The audit record of a credentials change: the masked documents before and after (a new key
/// shows as a new fingerprint).
public enum PushCredentialTrail {
    public static func draft(
        tenantID: String, provider: PushProvider, _ old: PushCredentials?, _ new: PushCredentials?, actor: AuditActor,
        requestID: String?, time: Date
    ) -> AuditDraft {
        AuditDraft(
            time: time, actor: actor, requestID: requestID, verb: new == nil ? .delete : .update,
            resource: AuditResource(type: .pushCredential, tenant: tenantID, id: provider.rawValue), outcome: new == nil ? AuditOutcome(status: 204) : .ok,
            change: AuditChange.between(
                old.map { PushCredentialDocument($0) }, new.map { PushCredentialDocument($0) }, ignoring: []))
    }
}
