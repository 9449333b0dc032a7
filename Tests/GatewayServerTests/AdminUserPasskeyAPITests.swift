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

    @Test("gatewayctl user passkeys: the same list on both paths, a removal on each recorded", arguments: DatabaseBackend.available)
    func gatewayctlBothPaths(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let auth = admin.stores.auth
            try await auth.addUser(LocalUser(tenantID: "acme", username: "alice", subject: "sub-alice", passwordHash: "ph"))
            for byte: UInt8 in [1, 2, 3] { try await auth.addPasskey(Self.passkey(byte, subject: "sub-alice"), trail: nil) }
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("gatewayctl-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let local = admin.databaseEnvironment.merging(["USER": "tester", "GATEWAYCTL_HOME": home]) { $1 }
            let remote = local.merging(["GATEWAY_ADMIN_TOKEN": admin.tokens["acme-admin"]!]) { $1 }
            let server = ["--server", "http://127.0.0.1:\(admin.port)"]
            let list = ["user", "passkeys", "list", "--tenant", "acme", "--username", "alice", "--json"]

            let onDatabase = await AdminCLITests.ctl(local, list)
            let overAPI = await AdminCLITests.ctl(remote, list + server)
            #expect(onDatabase.code == 0 && overAPI.code == 0, "\(onDatabase.error) \(overAPI.error)")
            #expect(onDatabase.output == overAPI.output)
            let listed = try JSONSerialization.jsonObject(with: Data(onDatabase.output.utf8)) as? [[String: Any]]
            #expect(listed?.map { $0["name"] as? String } == ["Phone 1", "Phone 2", "Phone 3"])
            #expect(listed?.first?["publicKey"] == nil && !onDatabase.output.contains("signCount"))
            let table = await AdminCLITests.ctl(local, Array(list.dropLast()))
            #expect(table.output.hasPrefix("ID") && table.output.contains(Base64URL.encode([2, 7])))

            let remove = ["user", "passkeys", "remove", "--tenant", "acme", "--username", "alice", "--id"]
            #expect(await AdminCLITests.ctl(local, remove + [Base64URL.encode([1, 7])]).code == 0)
            #expect(await AdminCLITests.ctl(remote, remove + [Base64URL.encode([2, 7])] + server).code == 0)
            // Gone already, on either path: refused, nothing written.
            let again = await AdminCLITests.ctl(local, remove + [Base64URL.encode([1, 7])])
            #expect(again.code == 2 && again.error.contains("holds no passkey"), "\(again.error)")
            #expect(await AdminCLITests.ctl(remote, remove + [Base64URL.encode([2, 7])] + server).code != 0)
            #expect(await AdminCLITests.ctl(local, remove + ["not base64url!"]).code == 2)
            #expect(try await auth.passkeys(tenantID: "acme", subject: "sub-alice").map(\.name) == ["Phone 3"])
            let records = try await admin.stores.audit.records(matching: AuditQuery(chain: "acme", resourceType: .user)).items
            let removals = records.filter { $0.note?.action == "passkey.remove" }
            #expect(removals.count == 2)
            #expect(Set(removals.map(\.actor.label)) == ["tester", "operator:acme-admin"], "\(removals.map(\.actor))")
        }
    }
}
