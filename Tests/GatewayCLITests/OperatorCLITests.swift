import Foundation
import GatewayCLI
import GatewayCore
@testable import GatewaySQLite
import Testing

/// `gatewayctl operator` and `gatewayctl audit` on the database (issue 48): the bootstrap
/// operator, bindings, refusals that write nothing, and a trail that names tampering.
@Suite("gatewayctl operator and audit")
struct OperatorCLITests {
    @Test("bootstrap a platform admin, a service account shown once, bindings; audit list and verify")
    func bootstrapAndAudit() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let alice = await ctl.run(["operator", "create", "alice", "--platform-admin", "--password-stdin"], stdin: "correct horse\n")
        #expect(alice.code == 0, "\(alice.error)")
        let bot = try #require(
            try await ctl.run(["operator", "create", "ci-bot", "--service-account", "--json"]).json() as? [String: Any])
        let secret = try #require(bot["clientSecret"] as? String)
        #expect(bot["clientId"] as? String == "ci-bot" && secret.count >= 40)
        let bound = await ctl.run(["operator", "bind", "ci-bot", "--tenant", "acme", "--role", "release-manager", "--miniapp", "hello"])
        #expect(bound.code == 0 && bound.output.contains("release-manager@acme[hello]"), "\(bound.error)")

        // Refusals exit 2 and write nothing.
        let before = try ctl.store().integer(sql: "SELECT COUNT(*) FROM audit_records")
        for (arguments, message) in [
            (["operator", "bind", "ci-bot", "--tenant", "nope", "--role", "viewer"], "no tenant nope"),
            (["operator", "bind", "ci-bot", "--tenant", "acme", "--role", "superuser"], "--role must be one of"),
            (["operator", "bind", "ci-bot", "--tenant", "acme", "--role", "platform-admin"], "platform-wide"),
            (["operator", "bind", "ci-bot", "--tenant", "acme", "--role", "viewer", "--miniapp", "x"], "only release-manager"),
            (["operator", "bind", "bob", "--role", "viewer"], "no operator bob"),
            (["operator", "create", "Bad Name", "--service-account"], "operator names"),
            (["operator", "create", "alice", "--service-account"], "exists"),
            (["operator", "create", "carol"], "exactly one of"),
        ] {
            let refused = await ctl.run(arguments)
            #expect(refused.code == 2, "\(arguments): \(refused.error)")
            #expect(refused.error.contains(message), "\(arguments): \(refused.error)")
        }
        #expect(try ctl.store().integer(sql: "SELECT COUNT(*) FROM audit_records") == before)
        let short = await ctl.run(["operator", "create", "dave", "--password-stdin"], stdin: "short\n")
        #expect(short.code == 2)

        let list = await ctl.run(["operator", "list"])
        #expect(list.output.contains("alice") && list.output.contains("platform-admin@platform"))
        #expect(!list.output.contains("scrypt") && !list.output.contains(secret))
        let listed = try #require(try await ctl.run(["operator", "list", "--json"]).json() as? [[String: Any]])
        #expect(listed.count == 2 && listed.allSatisfy { $0["clientSecret"] == nil })

        let page = try #require(try await ctl.run(["audit", "list", "--json"]).json() as? [String: Any])
        let items = try #require(page["items"] as? [[String: Any]])
        #expect(items.count == 4)
        let binding = try #require(items.first)
        #expect((binding["actor"] as? [String: Any])?["subject"] as? String == "local:tester")
        #expect((binding["resource"] as? [String: Any])?["tenant"] as? String == "acme")
        // The tenant's creation opened its chain; the binding follows it.
        let created = try #require(items.last)
        #expect((created["resource"] as? [String: Any])?["type"] as? String == "tenant" && created["verb"] as? String == "create")
        #expect(created["previousHash"] as? String == AuditChain.genesis)
        #expect(binding["previousHash"] as? String == created["hash"] as? String)
        let byTenant = try #require(try await ctl.run(["audit", "list", "--tenant", "acme", "--json"]).json() as? [String: Any])
        #expect((byTenant["items"] as? [Any])?.count == 2)
        let byOperator = await ctl.run(["audit", "list", "--operator", "local:tester", "--resource", "operator"])
        #expect(byOperator.code == 0 && byOperator.output.contains("ci-bot") == false && byOperator.output.contains("tester"))

        // Export: JSON lines, oldest first, resumable after the last id.
        let export = await ctl.run(["audit", "export"])
        let lines = export.output.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 4 && lines.allSatisfy { $0?["hash"] is String }, "\(export.output)")
        let ids = lines.compactMap { $0?["id"] as? String }.compactMap(Int64.init)
        #expect(ids == ids.sorted() && export.error.contains("exported 4 records"))
        let resumed = await ctl.run(["audit", "export", "--after", String(ids[2])])
        #expect(resumed.output.split(separator: "\n").count == 1 && resumed.output.contains("\"id\":\"\(ids[3])\""))
        #expect(await ctl.run(["audit", "export", "--since", "yesterday"]).code == 2)

        let verified = await ctl.run(["audit", "verify"])
        #expect(verified.code == 0 && verified.output.contains("chain acme: 2 records intact"), "\(verified.output)")
        try ctl.store().execute(sql: "UPDATE audit_records SET body = REPLACE(body, 'hello', 'other') WHERE chain = 'acme'")
        let broken = await ctl.run(["audit", "verify", "--tenant", "acme"])
        #expect(broken.code == 1 && broken.output.contains("BROKEN at record"), "\(broken.output)")
        #expect(await ctl.run(["audit", "verify", "--platform"]).code == 0)
    }

    @Test("operator rotate-secret shows a new secret once; operator delete asks for --yes")
    func rotateAndDelete() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["migrate"]).code == 0)
        let bot = try #require(
            try await ctl.run(["operator", "create", "ci-bot", "--service-account", "--json"]).json() as? [String: Any])
        let first = try #require(bot["clientSecret"] as? String)
        let rotated = try #require(try await ctl.run(["operator", "rotate-secret", "ci-bot", "--json"]).json() as? [String: String])
        let second = try #require(rotated["clientSecret"])
        #expect(second != first && rotated["clientId"] == "ci-bot")
        let stored = try #require(try await ctl.store().durableStores().operators.findOperator(named: "ci-bot"))
        #expect(ClientSecret.verify(second, hash: try #require(stored.secretHash)))
        #expect(!ClientSecret.verify(first, hash: try #require(stored.secretHash)))
        _ = await ctl.run(["operator", "create", "alice", "--password-stdin"], stdin: "correct horse\n")
        let person = await ctl.run(["operator", "rotate-secret", "alice"])
        #expect(person.code == 2 && person.error.contains("is a person"), "\(person.error)")

        let unconfirmed = await ctl.run(["operator", "delete", "ci-bot"])
        #expect(unconfirmed.code == 2 && unconfirmed.error.contains("--yes"))
        #expect(await ctl.run(["operator", "delete", "ci-bot", "--yes"]).code == 0)
        #expect(try await ctl.store().durableStores().operators.findOperator(named: "ci-bot") == nil)
        #expect(await ctl.run(["operator", "delete", "ci-bot", "--yes"]).code == 2)
        let listed = await ctl.run(["audit", "list", "--platform", "--resource", "operator", "--json"])
        let verbs = ((try listed.json() as? [String: Any])?["items"] as? [[String: Any]])?.compactMap { $0["verb"] as? String }
        #expect(verbs == ["delete", "create", "act", "create"], "\(listed.output)")
    }

    @Test("audit prune leaves a signed checkpoint that verify starts from; a broken chain is left alone")
    func pruneBehindACheckpoint() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["migrate"]).code == 0)
        let trail = SQLiteAuditTrail(database: try ctl.store())
        let now = Date()
        for (chain, ages) in [("old", [100, 90, 80, 70, 60, 0]), ("bad", [100, 90, 0])] {
            for age in ages {
                try await trail.append(
                    AuditDraft(
                        time: now.addingTimeInterval(-Double(age) * 86_400), actor: .local(user: "root"), verb: .update,
                        resource: AuditResource(type: .tenant, tenant: chain, id: "day-\(age)"), outcome: .ok))
            }
        }
        try ctl.store().execute(sql: "UPDATE audit_records SET body = REPLACE(body, 'day-100', 'day-1') WHERE chain = 'bad'")
        #expect(await ctl.run(["audit", "prune", "--older-than-days", "7"]).code == 2)

        let pruned = await ctl.run(["audit", "prune", "--older-than-days", "30", "--json"])
        #expect(pruned.code == 1 && pruned.error.contains("chain old: 5 records pruned"), "\(pruned.error)")
        let report = try #require(try pruned.json() as? [String: Any])
        #expect(report["removed"] as? Int == 5 && report["checkpointed"] as? [String] == ["old"])
        #expect((report["refused"] as? [String])?.first?.contains("chain bad: record") == true)
        #expect(try ctl.store().integer(sql: "SELECT COUNT(*) FROM audit_records WHERE chain = 'bad'") == 3)

        let verified = await ctl.run(["audit", "verify", "--tenant", "old"])
        #expect(
            verified.code == 0 && verified.output.contains("chain old: 1 records intact after the checkpoint at sequence 5"),
            "\(verified.output)")
        try ctl.store().execute(sql: "UPDATE audit_checkpoints SET time_ms = time_ms + 1 WHERE chain = 'old'")
        let forged = await ctl.run(["audit", "verify", "--tenant", "old"])
        #expect(forged.code == 1 && forged.output.contains("BROKEN at its checkpoint (sequence 5)"), "\(forged.output)")
    }

    @Test("docs/operators.md carries the role table the gateway enforces")
    func roleTableInDocs() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/operators.md"), encoding: .utf8)
        #expect(page.contains(RoleTableText.markdown()), "regenerate it: gatewayctl operator roles --markdown")
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        let printed = await ctl.run(["operator", "roles", "--markdown"])
        #expect(printed.output == RoleTableText.markdown() + "\n")
    }
}
