import Foundation
import GatewayCLI
import GatewayCore
import GatewaySQLite
import Testing

@Suite("gatewayctl messages")
struct MessagesCLITests {
    @Test("messages inbox counts a user's messages; messages purge needs --yes and empties the tenant's inboxes")
    func inboxAndPurge() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let stores = try ctl.store().durableStores()
        for user in ["alice", "bob"] {
            try await stores.auth.addUser(LocalUser(tenantID: "acme", username: user, subject: user, passwordHash: "x"))
        }
        try await stores.messaging.replaceContacts(
            [Contact(id: "bob", name: nil, email: nil, isUser: true)], tenantID: "acme", userID: "alice")
        let owner = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "quiz")
        try await stores.consents.touch(owner)
        _ = try await stores.consents.setConsents([CustomPermission.sendMessage.rawValue: .allowed], for: owner)
        let service = MessagingService(store: stores.messaging, consents: stores.consents, cache: MemoryCache())
        for text in ["one", "two"] { _ = try await service.send(MessageContent(text: text), to: ["bob"], from: owner) }

        let inbox = await ctl.run(["messages", "inbox", "--tenant", "acme", "--user", "bob", "--json"])
        #expect(inbox.code == 0, "\(inbox.error)")
        let size = try #require(try inbox.json() as? [String: Any])
        #expect(size["total"] as? Int == 2 && size["unread"] as? Int == 2)
        let text = await ctl.run(["messages", "inbox", "--tenant", "acme", "--user", "bob"])
        #expect(text.output.contains("2 message(s), 2 unread"))
        #expect(await ctl.run(["messages", "inbox", "--tenant", "nope", "--user", "bob"]).code == 2)

        #expect(await ctl.run(["messages", "purge", "--tenant", "acme"]).code == 2)
        #expect(try await stores.messaging.inboxSize(tenantID: "acme", userID: "bob", now: Date()).total == 2)
        let purged = await ctl.run(["messages", "purge", "--tenant", "acme", "--yes", "--json"])
        let report = try purged.json() as? [String: Any]
        #expect(purged.code == 0 && report?["deletedMessages"] as? Int == 2)
        #expect(try await stores.messaging.inboxSize(tenantID: "acme", userID: "bob", now: Date()).total == 0)
        #expect(try await stores.messaging.contacts(tenantID: "acme", userID: "alice").count == 1, "contacts stay")
    }
}
