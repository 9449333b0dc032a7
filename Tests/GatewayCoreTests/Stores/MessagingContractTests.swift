import Foundation
import Testing
@testable import GatewayCore

/// Contacts, messages, the inbox and blocks on both engines (issue 31), through the
/// ``MessagingService`` with a manual clock: the SDK's three send calls, who can be reached,
/// consent, blocks, paging under concurrent inserts, expiry, erasure, atomic refusals.
@Suite("Messaging contract")
struct MessagingContractTests {
    struct World {
        let service: MessagingService
        let database: TestDatabase
        let clock: ManualClock

        /// The mini app the users message through.
        func owner(_ user: String, _ miniApp: String = "quiz") -> UserMiniAppKey {
            UserMiniAppKey(tenantID: "acme", userID: user, miniAppID: miniApp)
        }

        func allow(_ user: String, _ permissions: [CustomPermission], _ status: ConsentStatus = .allowed) async throws {
            try await database.stores.consents.touch(owner(user))
            _ = try await database.stores.consents.setConsents(
                Dictionary(uniqueKeysWithValues: permissions.map { ($0.rawValue, status) }), for: owner(user))
        }

        func inbox(_ user: String, cursor: InboxCursor? = nil, limit: Int? = nil) async throws -> InboxPage {
            try await service.inbox(tenantID: "acme", userID: user, cursor: cursor, limit: limit)
        }
    }

    /// Tenant acme with alice (Alice), bob, carol, dana (disabled); tenant beta with eve.
    /// alice allows CONTACT_LIST and SEND_MESSAGE for quiz and lists bob (as "Bobby"),
    /// carol, dana and an external contact; bob lists alice as "Ally".
    static func withWorld(
        _ backend: StoreBackend, settings: MessagingService.Settings = .init(limits: .init(perRecipientPerHour: 0)),
        _ body: (World) async throws -> Void
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let stores = database.stores
        for tenant in ["acme", "beta"] {
            try await stores.tenants.create(Tenant(id: tenant, displayName: tenant), actor: "t")
        }
        for (tenant, user, name, disabled) in [
            ("acme", "alice", "Alice", false), ("acme", "bob", nil, false), ("acme", "carol", "Carol", false),
            ("acme", "dana", "Dana", true), ("beta", "eve", "Eve", false),
        ] {
            try await stores.auth.addUser(
                LocalUser(tenantID: tenant, username: user, subject: user, name: name, disabled: disabled, passwordHash: "x"))
        }
        let clock = ManualClock()
        let service = MessagingService(
            store: stores.messaging, consents: stores.consents, cache: MemoryCache(), settings: settings, clock: clock.wall)
        let world = World(service: service, database: database, clock: clock)
        try await world.allow("alice", [.contactList, .sendMessage])
        _ = try await service.replaceContacts(
            [.init(id: "bob", name: "Bobby"), .init(id: "carol"), .init(id: "dana"),
             .init(name: "Zed", email: "zed@example.com")], tenantID: "acme", userID: "alice")
        _ = try await service.replaceContacts([.init(id: "alice", name: "Ally")], tenantID: "acme", userID: "bob")
        try await body(world)
    }

    static let hello = MessageContent(text: "Join my team", action: "https://quiz.example.com/join/42")

    @Test(arguments: StoreBackend.available) func contactsForHostAndMiniApp(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            let listed = try await world.service.contacts(tenantID: "acme", userID: "alice")
            #expect(listed.map(\.id) == ["bob", "carol", "dana", ContactRules.externalID(email: "zed@example.com")])
            #expect(listed.map(\.isUser) == [true, true, true, false] && listed[0].name == "Bobby")
            #expect(listed[3].email == "zed@example.com" && listed[3].id.hasPrefix("ext_"))
            // The same external contact keeps its id across uploads (case of the email aside).
            #expect(ContactRules.externalID(email: "ZED@example.com") == listed[3].id)
            let other = try await world.database.another()
            #expect(try await other.messaging.contacts(tenantID: "acme", userID: "alice") == listed)
            #expect(try await world.service.contacts(for: world.owner("alice")) == listed)
            // Without CONTACT_LIST (never answered, then denied) the mini app gets nothing.
            await #expect(throws: MessagingError.consentRequired(permission: CustomPermission.contactList.rawValue, miniAppID: "quiz")) {
                try await world.service.contacts(for: world.owner("bob"))
            }
            try await world.allow("alice", [.contactList], .denied)
            await #expect(throws: MessagingError.self) { try await world.service.contacts(for: world.owner("alice")) }
        }
    }

    /// Issue 47: contacts were stored unsealed while device tokens were sealed. Names and emails
    /// are now sealed at rest; rows from before the migration read as they are until sealed.
    @Test(arguments: StoreBackend.available) func contactsAreSealedAtRest(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            let atRest = try await world.database.bytesAtRest()
            for secret in ["zed@example.com", "Bobby", "Ally"] {
                #expect(atRest.range(of: Data(secret.utf8)) == nil, "\(secret) stored unsealed")
            }
            // A row written before contacts were sealed (as the previous release wrote it).
            try await world.database.execute("""
                INSERT INTO user_contacts (tenant_id, user_id, position, contact_id, is_user, name, email, sealed)
                VALUES ('acme', 'carol', 0, 'alice', true, 'Old Ally', 'ally@example.com', false)
                """)
            let legacy = try await world.service.contacts(tenantID: "acme", userID: "carol")
            #expect(legacy == [Contact(id: "alice", name: "Old Ally", email: "ally@example.com", isUser: true)])
            #expect(try await world.database.stores.messaging.sealLegacyContacts(limit: 10) == 1)
            #expect(try await world.database.stores.messaging.sealLegacyContacts(limit: 10) == 0)
            #expect(try await world.database.another().messaging.contacts(tenantID: "acme", userID: "carol") == legacy)
            #expect(try await world.database.bytesAtRest().range(of: Data("ally@example.com".utf8)) == nil)
            // The name carol gave alice still titles what alice sends her (read sealed).
            try await world.allow("alice", [.contactList, .sendMessage])
            let reach = try await world.database.stores.messaging.reach(tenantID: "acme", senderID: "alice", ids: ["carol"])
            #expect(reach.recipients["carol"] == .reachable(senderName: "Old Ally"))
        }
    }

    @Test(arguments: StoreBackend.available) func refusedContactListsStoreNothing(backend: StoreBackend) async throws {
        try await Self.withWorld(backend, settings: .init(maxContacts: 5_000)) { world in
            let before = try await world.service.contacts(tenantID: "acme", userID: "alice")
            let many = (0..<10_000).map { ContactUpload(name: "N\($0)", email: "n\($0)@example.com") }
            await #expect(throws: MessagingError.tooManyContacts(max: 5_000)) {
                try await world.service.replaceContacts(many, tenantID: "acme", userID: "alice")
            }
            for (uploads, fragment) in [
                ([ContactUpload(id: "bob"), .init(id: "eve")], "eve"),  // another tenant's user
                ([.init(id: "nobody")], "nobody"),
                ([.init(id: "bob"), .init(id: "bob")], "repeats"),
                ([.init(id: "alice")], "own"),
                ([.init(name: "No Mail")], "email"),
                ([.init(name: "X", email: "not-an-email")], "email"),
                ([.init(id: "bad,id")], "malformed"),
            ] as [([ContactUpload], String)] {
                do {
                    _ = try await world.service.replaceContacts(uploads, tenantID: "acme", userID: "alice")
                    Issue.record("accepted \(uploads)")
                } catch MessagingError.invalidContacts(let text) {
                    #expect(text.contains(fragment), "\(text)")
                }
            }
            #expect(try await world.service.contacts(tenantID: "acme", userID: "alice") == before)
            // An empty list clears.
            _ = try await world.service.replaceContacts([], tenantID: "acme", userID: "alice")
            #expect(try await world.service.contacts(tenantID: "acme", userID: "alice").isEmpty)
        }
    }

    /// Text that may hold control characters keeps them whole on both engines (issue 62 §2): a
    /// message's text is stored inside its JSON document, where U+0000 is an escape, never a
    /// C string's end. A contact's name is an identifier-like column: one holding a control
    /// character is refused, with nothing written.
    @Test(arguments: StoreBackend.available) func controlCharactersRoundTripWhereTextAllowsThem(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            let text = "line one\nnul:\u{0}:end\u{1B}[0m\ttab"
            let sent = try await world.service.send(MessageContent(text: text), to: ["bob"], from: world.owner("alice"))
            #expect(sent.map(\.outcome) == [.sent])
            #expect(try await world.inbox("bob").items.map(\.content.text) == [text])
            await #expect(throws: MessagingError.invalidContacts("contacts[0]: a name holds no control character")) {
                _ = try await world.service.replaceContacts([.init(id: "bob", name: "Bo\u{0}b")], tenantID: "acme", userID: "alice")
            }
            let contacts = try await world.service.contacts(tenantID: "acme", userID: "alice")
            #expect(contacts.first { $0.id == "bob" }?.name == "Bobby")
        }
    }

    @Test(arguments: StoreBackend.available) func theSDKsThreeSendCalls(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            let alice = world.owner("alice")
            // sendMessageToContact: the contact the user chose in the host app's picker.
            let chosen = try await world.service.send(Self.hello, to: ["bob"], from: alice)
            #expect(chosen.map(\.outcome) == [.sent])
            // sendMessageToContactId: one id, here one that is no contact of alice.
            let byID = try await world.service.send(Self.hello, to: ["eve"], from: alice)
            #expect(byID.map(\.outcome) == [.notAContact])
            // sendMessageToMultipleContacts: an external contact, a disabled user and a repeat.
            let external = ContactRules.externalID(email: "zed@example.com")
            let many = try await world.service.send(
                MessageContent(text: "Quiz at 8"), to: ["bob", "carol", external, "dana", "bob"], from: alice)
            #expect(many.map(\.id) == ["bob", "carol", external, "dana"])
            #expect(many.map(\.outcome) == [.sent, .sent, .notAContact, .notAContact])

            let bobs = try await world.inbox("bob")
            #expect(bobs.items.map(\.content.text) == ["Quiz at 8", "Join my team"] && bobs.unread == 2)
            #expect(bobs.items[1].content.action == "https://quiz.example.com/join/42")
            // Bob named alice "Ally"; carol did not name her, so her profile name.
            #expect(bobs.items[0].senderName == "Ally" && bobs.items[0].senderID == "alice" && bobs.items[0].miniAppID == "quiz")
            #expect(try await world.inbox("carol").items.map(\.senderName) == ["Alice"])
            #expect(try await world.inbox("dana").items.isEmpty)
            #expect(try await world.inbox("alice").items.isEmpty)

            // Read and delete: only the recipient's own messages.
            try await world.service.markRead(tenantID: "acme", userID: "bob", messageID: bobs.items[1].id)
            #expect(try await world.inbox("bob").unread == 1)
            await #expect(throws: MessagingError.messageNotFound(id: bobs.items[0].id)) {
                try await world.service.markRead(tenantID: "acme", userID: "carol", messageID: bobs.items[0].id)
            }
            try await world.service.deleteMessage(tenantID: "acme", userID: "bob", messageID: bobs.items[0].id)
            #expect(try await world.inbox("bob").items.map(\.id) == [bobs.items[1].id])
            await #expect(throws: MessagingError.messageNotFound(id: bobs.items[0].id)) {
                try await world.service.deleteMessage(tenantID: "acme", userID: "bob", messageID: bobs.items[0].id)
            }
        }
    }

    @Test(arguments: StoreBackend.available) func consentWithdrawnBetweenTwoSends(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            #expect(try await world.service.send(Self.hello, to: ["bob"], from: world.owner("alice")).map(\.outcome) == [.sent])
            try await world.allow("alice", [.sendMessage], .denied)
            await #expect(throws: MessagingError.consentRequired(permission: CustomPermission.sendMessage.rawValue, miniAppID: "quiz")) {
                try await world.service.send(Self.hello, to: ["bob"], from: world.owner("alice"))
            }
            // Another mini app the user never allowed.
            await #expect(throws: MessagingError.self) {
                try await world.service.send(Self.hello, to: ["bob"], from: world.owner("alice", "shop"))
            }
            #expect(try await world.inbox("bob").items.count == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func aBlockedSenderCannotReachTheUser(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            try await world.service.block("alice", tenantID: "acme", userID: "bob")
            try await world.service.block("alice", tenantID: "acme", userID: "bob")  // idempotent
            #expect(try await world.service.blocked(tenantID: "acme", userID: "bob").map(\.userID) == ["alice"])
            let outcomes = try await world.service.send(Self.hello, to: ["bob", "carol"], from: world.owner("alice"))
            #expect(outcomes.map(\.outcome) == [.blocked, .sent])
            #expect(try await world.inbox("bob").items.isEmpty)
            await #expect(throws: MessagingError.self) { try await world.service.block("bob", tenantID: "acme", userID: "bob") }
            try await world.service.unblock("alice", tenantID: "acme", userID: "bob")
            await #expect(throws: MessagingError.blockNotFound(userID: "alice")) {
                try await world.service.unblock("alice", tenantID: "acme", userID: "bob")
            }
            #expect(try await world.service.send(Self.hello, to: ["bob"], from: world.owner("alice")).map(\.outcome) == [.sent])
        }
    }

    @Test(arguments: StoreBackend.available) func blocksAreBounded(backend: StoreBackend) async throws {
        try await Self.withWorld(backend, settings: .init(maxBlocked: 3)) { world in
            for id in ["u1", "u2", "u3"] { try await world.service.block(id, tenantID: "acme", userID: "bob") }
            await #expect(throws: MessagingError.invalidBlock(MessagingRows.tooManyBlocks(3))) {
                try await world.service.block("u4", tenantID: "acme", userID: "bob")
            }
            try await world.service.block("u2", tenantID: "acme", userID: "bob")  // held already: fine
            #expect(try await world.service.blocked(tenantID: "acme", userID: "bob").count == 3)
        }
    }

    @Test(arguments: StoreBackend.available) func pagingIsStableUnderConcurrentInserts(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            let alice = world.owner("alice")
            for n in 0..<25 { _ = try await world.service.send(MessageContent(text: "m\(n)"), to: ["bob"], from: alice) }
            var seen: [String] = []
            var page = try await world.inbox("bob", limit: 10)
            var pages = 0
            while true {
                pages += 1
                seen += page.items.map(\.content.text)
                // New messages arrive (from another connection pool, as another replica) between pages.
                let other = try await world.database.another()
                let racing = MessagingService(
                    store: other.messaging, consents: other.consents, cache: MemoryCache(), clock: world.clock.wall)
                for n in 0..<3 { _ = try await racing.send(MessageContent(text: "new\(pages)-\(n)"), to: ["bob"], from: alice) }
                guard let next = page.next else { break }
                page = try await world.inbox("bob", cursor: next, limit: 10)
            }
            #expect(seen == (0..<25).reversed().map { "m\($0)" }, "no repeats, no gaps, newest first")
            #expect(pages == 3)
            #expect(try await world.inbox("bob", limit: 100).unread == 25 + 9)
            #expect(InboxCursor(token: "not-a-cursor") == nil && InboxCursor(token: InboxCursor(before: 7).token) == InboxCursor(before: 7))
        }
    }

    @Test(arguments: StoreBackend.available) func expiredMessagesAreHiddenThenPurged(backend: StoreBackend) async throws {
        try await Self.withWorld(backend, settings: .init(retention: .seconds(86_400), limits: .init(perRecipientPerHour: 0))) { world in
            _ = try await world.service.send(MessageContent(text: "old"), to: ["bob"], from: world.owner("alice"))
            world.clock.advance(.seconds(43_200))
            _ = try await world.service.send(MessageContent(text: "new"), to: ["bob"], from: world.owner("alice"))
            world.clock.advance(.seconds(43_201))
            #expect(try await world.inbox("bob").items.map(\.content.text) == ["new"])
            #expect(try await world.service.inboxSize(tenantID: "acme", userID: "bob") == InboxSize(total: 1, unread: 1))
            let retention = BatchedRetention.inbox(
                world.database.stores.messaging, batch: 1, clock: world.clock.wall.now, logger: .init(label: "t"))
            #expect(try await retention.purge() == 1)
            #expect(try await world.database.integer("SELECT count(*) FROM inbox_messages") == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func inboxesKeepTheirNewest(backend: StoreBackend) async throws {
        try await Self.withWorld(backend, settings: .init(inboxKeep: 5, limits: .init(perRecipientPerHour: 0))) { world in
            for n in 0..<8 { _ = try await world.service.send(MessageContent(text: "m\(n)"), to: ["bob"], from: world.owner("alice")) }
            #expect(try await world.inbox("bob").items.map(\.content.text) == ["m7", "m6", "m5", "m4", "m3"])
        }
    }

    @Test(arguments: StoreBackend.available) func limitsCutSendersAndSpareRecipients(backend: StoreBackend) async throws {
        try await Self.withWorld(
            backend, settings: .init(limits: .init(perSenderPerMinute: 3, perSenderPerDay: 6, perRecipientPerHour: 2))
        ) { world in
            let alice = world.owner("alice")
            #expect(try await world.service.send(Self.hello, to: ["bob", "carol"], from: alice).map(\.outcome) == [.sent, .sent])
            // One more recipient is within the minute; two are not: nothing is sent.
            do {
                _ = try await world.service.send(Self.hello, to: ["bob", "carol"], from: alice)
                Issue.record("over the minute's limit")
            } catch MessagingError.rateLimited(let seconds, _) {
                #expect((1...60).contains(seconds))
            }
            world.clock.advance(.seconds(60))
            #expect(try await world.service.send(Self.hello, to: ["bob"], from: alice).map(\.outcome) == [.sent])
            // Bob got 2 this hour: his copy is rate_limited, carol's is sent.
            #expect(try await world.service.send(Self.hello, to: ["bob", "carol"], from: alice).map(\.outcome) == [.rateLimited, .sent])
            world.clock.advance(.seconds(60))
            // The day's 6 are used (2 + 1 + 2 counted, 2 more is 7): refused until tomorrow.
            await #expect(throws: MessagingError.self) { try await world.service.send(Self.hello, to: ["carol", "bob"], from: alice) }
            #expect(try await world.inbox("bob").items.count == 2)
            #expect(try await world.inbox("carol").items.count == 2)
        }
    }

    @Test(arguments: StoreBackend.available) func badMessagesAreRefusedAndNothingIsStored(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            for content in [
                MessageContent(text: String(repeating: "x", count: 1_000_000)),
                MessageContent(text: ""),
                MessageContent(text: "hi", action: "javascript:alert(1)"),
                MessageContent(text: "hi", image: "http://cdn.example.com/a.png"),
                MessageContent(text: "hi", image: "https://user:pw@cdn.example.com/a.png"),
                MessageContent(text: "hi", caption: String(repeating: "c", count: 1_001)),
            ] {
                await #expect(throws: MessagingError.self) {
                    try await world.service.send(content, to: ["bob"], from: world.owner("alice"))
                }
            }
            await #expect(throws: MessagingError.self) {
                try await world.service.send(Self.hello, to: (0...100).map { "u\($0)" }, from: world.owner("alice"))
            }
            let inbox = try await world.database.integer("SELECT count(*) FROM inbox_messages")
            let pushes = try await world.database.integer("SELECT count(*) FROM push_messages")
            #expect(inbox == 0 && pushes == 0)
        }
    }

    @Test(arguments: StoreBackend.available) func eachSentCopyQueuesItsPush(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            let devices = DeviceService(store: world.database.stores.devices)
            for user in ["bob", "carol"] {
                _ = try await devices.register(.init(provider: .fcm, token: "phone-\(user)", platform: .android), tenantID: "acme", userID: user)
            }
            try await world.allow("bob", [.notifications])  // carol never allowed them
            _ = try await world.service.send(Self.hello, to: ["bob", "carol"], from: world.owner("alice"))
            let states = try await world.database.integer(
                "SELECT count(*) FROM push_deliveries WHERE state = 'pending' AND user_id = 'bob'")
            #expect(states == 1)
            #expect(try await world.database.integer(
                "SELECT count(*) FROM push_deliveries WHERE state = 'skipped_no_consent' AND user_id = 'carol'") == 1)
            #expect(try await world.database.integer(
                "SELECT count(*) FROM push_messages WHERE client_id = '\(MessagingService.pushSender)'") == 2)
        }
    }

    @Test(arguments: StoreBackend.available) func erasureRemovesContactsBlocksAndMessages(backend: StoreBackend) async throws {
        try await Self.withWorld(backend) { world in
            _ = try await world.service.send(Self.hello, to: ["bob", "carol"], from: world.owner("alice"))
            try await world.service.block("carol", tenantID: "acme", userID: "alice")
            try await world.service.block("alice", tenantID: "acme", userID: "carol")
            _ = try await world.service.replaceContacts([.init(id: "alice"), .init(id: "bob")], tenantID: "acme", userID: "carol")
            try await world.allow("bob", [.sendMessage])
            _ = try await world.service.send(MessageContent(text: "to alice"), to: ["alice"], from: world.owner("bob"))
            let erased = try await world.database.stores.auth.eraseUser(tenantID: "acme", subject: "alice", now: Date())
            #expect(erased.deleted["user_contacts"] == 4 + 1 + 1, "her 4, her entries in bob's and carol's lists")
            #expect(erased.deleted["inbox_messages"] == 3 && erased.deleted["user_blocks"] == 2)
            for table in ["inbox_messages", "user_blocks"] {
                #expect(try await world.database.integer("SELECT count(*) FROM \(table)") == 0)
            }
            #expect(try await world.service.contacts(tenantID: "acme", userID: "carol").map(\.id) == ["bob"])
        }
    }
}
