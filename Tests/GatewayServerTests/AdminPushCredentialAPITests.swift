import Crypto
import Foundation
import GatewayCore
import NIOHTTP1
import Testing
import _CryptoExtras

/// Push provider credentials through the admin API (issue 48) on both engines: the key goes
/// in and never comes back (answers, the trail), a new key shows as a new fingerprint, the
/// provider's rules refuse with a stable code and nothing written.
@Suite("Admin API push credentials")
struct AdminPushCredentialAPITests {
    static let base = "/admin/v1/tenants/acme/push-credentials"

    static func apnsBody(_ pem: String, topic: String = "com.acme.app") throws -> String {
        let body: [String: String] = ["keyID": "ABC123DEFG", "teamID": "TEAM123456", "topic": topic, "privateKey": pem]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test(arguments: DatabaseBackend.available)
    func writeOnlyKeysAndTheirTrail(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let token = admin.tokens["acme-admin"]
            let (first, second) = (P256.Signing.PrivateKey().pemRepresentation, P256.Signing.PrivateKey().pemRepresentation)
            let set = try await admin.call(
                .PUT, "\(Self.base)/apns", token: token, body: try Self.apnsBody(first), contentType: "application/json")
            #expect(set.status == 200 && set.json["privateKey"] as? String == PushCredentialDocument.masked, "\(set.json)")
            let fingerprint = try #require(set.json["keyFingerprint"] as? String)
            let replaced = try await admin.call(
                .PUT, "\(Self.base)/apns", token: token, body: try Self.apnsBody(second, topic: "com.acme.app2"),
                contentType: "application/json")
            #expect(replaced.status == 200 && replaced.json["keyFingerprint"] as? String != fingerprint)
            guard case .apns(let stored)? = try await admin.stores.pushCredentials.credentials(tenantID: "acme", provider: .apns)
            else {
                Issue.record("no APNs credentials stored")
                return
            }
            #expect(stored.privateKey.plaintext == second && stored.topic == "com.acme.app2")

            let read = try await admin.call(.GET, "\(Self.base)/apns", token: admin.tokens["acme-viewer"])
            let list = try await admin.call(.GET, Self.base, token: admin.tokens["acme-auditor"])
            #expect(read.status == 200 && (list.json["items"] as? [[String: Any]])?.count == 1)
            for reply in [set, replaced, read, list] {
                #expect(!AdminTenantAPITests.text(reply).contains("PRIVATE KEY"))
            }
            let sender = try await admin.call(.GET, Self.base, token: admin.tokens["acme-sender"])
            #expect(sender.status == 403 && sender.json["missingPermission"] as? String == "push-credential:read")

            // The provider's rules: FCM members on APNs, no key at all, an RSA key as a .p8.
            let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
            for (path, body) in [
                ("apns", #"{"serviceAccountJSON": "{}"}"#), ("fcm", #"{"topic": "x"}"#),
                ("fcm", #"{"serviceAccountJSON": "{\"type\": \"authorized_user\"}"}"#),
                ("apns", try Self.apnsBody(rsa)),
            ] {
                let reply = try await admin.call(
                    .PUT, "\(Self.base)/\(path)", token: token, body: body, contentType: "application/json")
                #expect(
                    reply.status == 422 && reply.json["code"] as? String == "invalid_push_credentials", "\(body): \(reply.json)")
            }
            #expect(try await admin.stores.pushCredentials.credentials(tenantID: "acme", provider: .fcm) == nil)

            let removed = try await admin.call(.DELETE, "\(Self.base)/apns", token: token)
            let again = try await admin.call(.DELETE, "\(Self.base)/apns", token: token)
            #expect(removed.status == 204 && again.status == 404)
            #expect(again.json["code"] as? String == "push_credentials_not_found")

            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .pushCredential, limit: 20)
            ).items
            #expect(records.map { "\($0.verb.rawValue):\($0.outcome.status)" } == [
                "delete:204", "update:422", "update:422", "update:422", "update:422", "read:403", "update:200", "update:200",
            ])
            let trail = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
            #expect(!trail.contains("PRIVATE KEY") && trail.contains(fingerprint))
        }
    }
}
