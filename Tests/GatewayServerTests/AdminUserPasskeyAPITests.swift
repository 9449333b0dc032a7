import Foundation
import GatewayCore
import Testing

/// A user's passkeys through the admin API (issue 64) on both engines: listed without keys,
/// one removed with its audit record; another user's is not found; a viewer cannot remove.
@Suite("Admin API user passkeys")
struct AdminUserPasskeyAPITests {
    static let users = "/admin/v1/tenants/acme/users"

    static func passkey(_ byte: UInt8, subject: String) -> StoredPasskey {
        StoredPasskey(
            tenantID: "acme", subject: subject, credentialID: [byte, 7], publicKey: [1, 2, 3], algorithm: -7, signCount: 3,
            backupEligible: true, backedUp: true, aaguid: [UInt8](repeating: 0, count: 16), transports: ["internal"],
            name: "Phone \(byte)", createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(byte)))
    }

    @Test(arguments: DatabaseBackend.available)
    func listAndRemove(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let auth = admin.stores.auth
            try await auth.addUser(LocalUser(tenantID: "acme", username: "alice", subject: "sub-alice", passwordHash: "ph"))
            try await auth.addUser(LocalUser(tenantID: "acme", username: "bob", subject: "sub-bob", passwordHash: "ph"))
            for byte: UInt8 in [1, 2] { try await auth.addPasskey(Self.passkey(byte, subject: "sub-alice"), trail: nil) }
            try await auth.addPasskey(Self.passkey(9, subject: "sub-bob"), trail: nil)

            let listed = try await admin.call(.GET, "\(Self.users)/alice/passkeys", token: admin.tokens["acme-auditor"])
            #expect(listed.status == 200, "\(listed.json)")
            let items = try #require(listed.json["items"] as? [[String: Any]])
            #expect(items.map { $0["name"] as? String } == ["Phone 1", "Phone 2"])
            #expect(items.first?["id"] as? String == Base64URL.encode([1, 7]) && items.first?["publicKey"] == nil)

            let bobs = Base64URL.encode([9, 7])
            let notHers = try await admin.call(.DELETE, "\(Self.users)/alice/passkeys/\(bobs)", token: admin.tokens["acme-admin"])
            #expect(notHers.status == 404 && notHers.json["code"] as? String == "passkey_not_found")
            let viewer = try await admin.call(
                .DELETE, "\(Self.users)/alice/passkeys/\(Base64URL.encode([1, 7]))", token: admin.tokens["acme-auditor"])
            #expect(viewer.status == 403)
            let nobody = try await admin.call(.GET, "\(Self.users)/nobody/passkeys", token: admin.tokens["acme-admin"])
            #expect(nobody.status == 404 && nobody.json["code"] as? String == "user_not_found")

            let removed = try await admin.call(
                .DELETE, "\(Self.users)/alice/passkeys/\(Base64URL.encode([1, 7]))", token: admin.tokens["acme-admin"])
            #expect(removed.status == 204)
            #expect(try await auth.passkeys(tenantID: "acme", subject: "sub-alice").map(\.name) == ["Phone 2"])
            #expect(try await auth.passkeys(tenantID: "acme", subject: "sub-bob").count == 1)
            let records = try await admin.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
            #expect(records.filter { $0.note?.action == "passkey.remove" }.map(\.resource.id) == ["alice"])
        }
    }
}
