import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Logging
import NIOCore
import NIOHTTP1
import Testing

/// Issue 31 over HTTP: contacts, the SDK's getContacts and send calls, the inbox, blocks,
/// typed refusals that store nothing, and a message's push to the recipient's device.
@Suite("Messaging over HTTP: contacts, send, inbox, blocks, refusals, push")
struct MessagingEndpointTests {
    /// alice (the kit's user) and bob (named "Bob"), both signed in to demo; alice lists bob as
    /// "Bobby" and allows CONTACT_LIST and SEND_MESSAGE for shop.
    struct Scene {
        let kit: OAuthTestKit
        let alice: (subject: String, token: String)
        let bob: (subject: String, token: String)
        let base: String

        static func make(_ harness: GatewayHarness, _ client: Client, port: Int) async throws -> Scene {
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            var bobKit = kit
            bobKit.username = "bob-" + UUID().uuidString.prefix(8).lowercased()
            try await kit.store.addUser(
                LocalUser(
                    tenantID: "demo", username: bobKit.username, name: "Bob",
                    passwordHash: try PasswordHasher(logN: 12).hash(bobKit.password)))
            let subject = { (name: String) in
                try #require(try await harness.operatorStores.auth.user(tenantID: "demo", username: name)).subject
            }
            let scene = Scene(
                kit: kit, alice: (try await subject(kit.username), try await kit.tokens().accessToken),
                bob: (try await subject(bobKit.username), try await bobKit.tokens().accessToken),
                base: "http://127.0.0.1:\(port)/t/demo/v1")
            try await scene.allow(scene.alice.subject, [.contactList, .sendMessage])
            let put = try await scene.call(
                .PUT, "/me/contacts", as: scene.alice.token,
                json: #"{"contacts": [{"id": "\#(scene.bob.subject)", "name": "Bobby"}, {"name": "Dana", "email": "dana@example.com"}]}"#)
            #expect(put.status == 200, "\(put.json)")
            return scene
        }

        /// Stores consents as the consent API would (shop's manifest is the fake platform's).
        func allow(_ subject: String, _ permissions: [CustomPermission], _ status: ConsentStatus = .allowed) async throws {
            let owner = UserMiniAppKey(tenantID: "demo", userID: subject, miniAppID: "shop")
            let stores = kit.harness.operatorStores
            try await stores.consents.touch(owner)
            _ = try await stores.consents.setConsents(
                Dictionary(uniqueKeysWithValues: permissions.map { ($0.rawValue, status) }), for: owner)
        }

        func call(_ method: HTTPMethod, _ path: String, as token: String, json: String? = nil) async throws
            -> NotificationEndpointTests.Reply
        {
            try await NotificationEndpointTests.call(method, base + path, token: token, json: json)
        }

        func send(_ to: [String], text: String = "Join my team", extra: String = "", key: String? = nil) async throws
            -> NotificationEndpointTests.Reply
        {
            let ids = to.map { "\"\($0)\"" }.joined(separator: ", ")
            return try await NotificationEndpointTests.call(
                .POST, base + "/me/miniapps/shop/messages", token: alice.token,
                json: #"{"to": [\#(ids)], "message": {"text": "\#(text)"\#(extra)}}"#,
                headers: key.map { [("Idempotency-Key", $0)] } ?? [])
        }

        /// How many messages bob's inbox holds.
        func bobsMessages() async throws -> Int {
            try await kit.harness.operatorStores.messaging.inboxSize(
                tenantID: "demo", userID: bob.subject, now: Date()).total
        }
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    @Test("contacts, the three send calls, inbox read and delete, blocks", arguments: DatabaseBackend.available)
    func sendAndRead(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let scene = try await Scene.make(harness, client, port: port)
            let contacts = try await scene.call(.GET, "/me/miniapps/shop/contacts", as: scene.alice.token)
            guard case .array(let listed)? = contacts.json["contacts"] else { throw CancellationError() }
            #expect(listed.count == 2 && listed.first == .object(["id": .string(scene.bob.subject), "name": .string("Bobby")]))
            let external = ContactRules.externalID(email: "dana@example.com")
            // Bob allows nothing for shop: his contacts are not the mini app's.
            let refused = try await scene.call(.GET, "/me/miniapps/shop/contacts", as: scene.bob.token)
            #expect(refused.status == 403 && refused.json["code"] == .string("consent_required"))

            // sendMessageToContact / sendMessageToContactId / sendMessageToMultipleContacts.
            let one = try await scene.send([scene.bob.subject], extra: #", "action": "https://links.example.com/miniapp/shop""#)
            #expect(one.status == 200 && Self.strings(one.json["sentTo"]) == [scene.bob.subject], "\(one.json)")
            let stranger = try await scene.send(["someone-else"])
            #expect(stranger.status == 200 && Self.strings(stranger.json["sentTo"]).isEmpty)
            #expect(stranger.json["outcomes"] == .array([.object(["id": .string("someone-else"), "outcome": .string("not_a_contact")])]))
            let many = try await scene.send([scene.bob.subject, external], text: "Quiz at 8")
            #expect(Self.strings(many.json["sentTo"]) == [scene.bob.subject])

            let inbox = try await scene.call(.GET, "/me/inbox?limit=1", as: scene.bob.token)
            #expect(inbox.status == 200 && inbox.json["unread"] == .number(2), "\(inbox.json)")
            guard case .array(let items)? = inbox.json["items"], case .object(let newest)? = items.first,
                case .string(let id)? = newest["id"], case .string(let next)? = inbox.json["next"]
            else { throw CancellationError() }
            #expect(newest["from"] == .object(["id": .string(scene.alice.subject), "name": .string("Alice")]))
            #expect(newest["miniAppId"] == .string("shop") && newest["read"] == .bool(false))
            #expect(newest["message"] == .object(["text": .string("Quiz at 8")]))
            let second = try await scene.call(.GET, "/me/inbox?limit=1&cursor=\(next)", as: scene.bob.token)
            guard case .array(let older)? = second.json["items"], case .object(let first)? = older.first else {
                throw CancellationError()
            }
            #expect(first["message"] == .object(["text": .string("Join my team"), "action": .string("https://links.example.com/miniapp/shop")]))
            #expect(second.json["next"] == nil)
            #expect(try await scene.call(.GET, "/me/inbox?cursor=bogus", as: scene.bob.token).status == 400)

            #expect(try await scene.call(.POST, "/me/inbox/\(id)/read", as: scene.bob.token).status == 204)
            #expect(try await scene.call(.GET, "/me/inbox", as: scene.bob.token).json["unread"] == .number(1))
            let notHers = try await scene.call(.DELETE, "/me/inbox/\(id)", as: scene.alice.token)
            #expect(notHers.status == 404 && notHers.json["code"] == .string("message_not_found"))
            #expect(try await scene.call(.DELETE, "/me/inbox/\(id)", as: scene.bob.token).status == 204)

            // Bob blocks alice: her next message is `blocked`; unblocked, it arrives again.
            let block = try await scene.call(.POST, "/me/blocked", as: scene.bob.token, json: #"{"id": "\#(scene.alice.subject)"}"#)
            #expect(block.status == 204)
            let blocked = try await scene.send([scene.bob.subject])
            #expect(blocked.json["outcomes"] == .array([.object(["id": .string(scene.bob.subject), "outcome": .string("blocked")])]))
            let list = try await scene.call(.GET, "/me/blocked", as: scene.bob.token)
            guard case .array(let blocks)? = list.json["items"], case .object(let entry)? = blocks.first else {
                throw CancellationError()
            }
            #expect(blocks.count == 1 && entry["id"] == .string(scene.alice.subject))
            #expect(try await scene.call(.DELETE, "/me/blocked/\(scene.alice.subject)", as: scene.bob.token).status == 204)
            #expect(try await scene.call(.DELETE, "/me/blocked/\(scene.alice.subject)", as: scene.bob.token).json["code"] == .string("block_not_found"))
            #expect(Self.strings(try await scene.send([scene.bob.subject]).json["sentTo"]) == [scene.bob.subject])

            // Consent withdrawn: the next send is refused.
            try await scene.allow(scene.alice.subject, [.sendMessage], .denied)
            let withdrawn = try await scene.send([scene.bob.subject])
            #expect(withdrawn.status == 403 && withdrawn.json["code"] == .string("consent_required"))
        }
    }

    @Test("Idempotency-Key: the same send again answers the first outcomes and delivers nothing; another send with the key is 409", arguments: DatabaseBackend.available)
    func idempotentSends(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let scene = try await Scene.make(harness, client, port: port)
            let first = try await scene.send([scene.bob.subject, "nobody"], key: "send-1")
            #expect(first.status == 200, "\(first.json)")
            let again = try await scene.send([scene.bob.subject, "nobody"], key: "send-1")
            #expect(again.status == 200 && again.json == first.json, "\(again.json)")
            #expect(try await scene.bobsMessages() == 1, "delivered once")
            let other = try await scene.send([scene.bob.subject], text: "Another text", key: "send-1")
            #expect(other.status == 409 && other.json["code"] == .string("idempotency_conflict"), "\(other.json)")
            #expect(try await scene.bobsMessages() == 1, "nothing sent")
            // Another key, or none, is another send.
            #expect(try await scene.send([scene.bob.subject], key: "send-2").status == 200)
            #expect(try await scene.send([scene.bob.subject]).status == 200)
            #expect(try await scene.bobsMessages() == 3)
            let bad = try await scene.send([scene.bob.subject], key: String(repeating: "k", count: 129))
            #expect(bad.status == 400, "\(bad.json)")
        }
    }

    @Test("bad input: 10,000 contacts, another tenant's user, 1 MB text, a javascript: action; nothing stored", arguments: DatabaseBackend.available)
    func badInputStoresNothing(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let scene = try await Scene.make(harness, client, port: port)
            try await harness.operatorStores.tenants.create(Tenant(id: "other", displayName: "Other"), actor: "t")
            try await harness.operatorStores.auth.addUser(
                LocalUser(tenantID: "other", username: "eve", subject: "eve-subject", passwordHash: "x"))
            let before = try await scene.call(.GET, "/me/contacts", as: scene.alice.token).json

            let many = (0..<10_000).map { #"{"name": "N\#($0)", "email": "n\#($0)@example.com"}"# }.joined(separator: ",")
            let tooMany = try await scene.call(.PUT, "/me/contacts", as: scene.alice.token, json: #"{"contacts": [\#(many)]}"#)
            #expect(tooMany.status == 422 && tooMany.json["code"] == .string("too_many_contacts"), "\(tooMany.json)")
            let foreign = try await scene.call(
                .PUT, "/me/contacts", as: scene.alice.token, json: #"{"contacts": [{"id": "eve-subject"}]}"#)
            #expect(foreign.status == 422 && foreign.json["code"] == .string("invalid_contacts"))
            #expect(try await scene.call(.GET, "/me/contacts", as: scene.alice.token).json == before)

            let huge = try await scene.send([scene.bob.subject], text: String(repeating: "x", count: 1 << 20))
            #expect(huge.status == 413 && huge.json["code"] == .string("payload_too_large"))
            let script = try await scene.send([scene.bob.subject], extra: #", "action": "javascript:alert(1)""#)
            #expect(script.status == 422 && script.json["code"] == .string("invalid_message"))
            let long = try await scene.send([scene.bob.subject], text: String(repeating: "x", count: 4_001))
            #expect(long.status == 422 && long.json["code"] == .string("invalid_message"))
            let inbox = try await scene.call(.GET, "/me/inbox", as: scene.bob.token)
            #expect(inbox.json["items"] == .array([]) && inbox.json["unread"] == .number(0))
            let size = try await harness.operatorStores.messaging.inboxSize(
                tenantID: "demo", userID: scene.bob.subject, now: Date())
            #expect(size.total == 0)
        }
    }

    @Test("the recipient's device gets one provider call with the sender's name and the text; none without consent", arguments: DatabaseBackend.available)
    func pushToTheRecipient(backend: DatabaseBackend) async throws {
        try await FakeFCM.with { fcm in
            let clock = ManualClock(Date())
            try await GatewayHarness.withGateway(backend: backend, clock: clock.clock) { harness, client, port in
                let scene = try await Scene.make(harness, client, port: port)
                try await harness.operatorStores.pushCredentials.setCredentials(
                    try fcm.credentials, tenantID: "demo", now: clock.clock.now())
                let bobClient = scene.kit.authorizedClient("Bearer \(scene.bob.token)")
                _ = try await bobClient.registerDevice(
                    path: .init(tenant: "demo"), body: .json(.init(provider: .fcm, token: "bobs-phone", platform: .android))
                ).created
                let worker = PushDeliveryTests.worker(harness, fcm: fcm, clock: clock)

                // Bob has not allowed notifications from shop: the inbox gets it, the phone does not.
                #expect(Self.strings(try await scene.send([scene.bob.subject], text: "Quiet").json["sentTo"]) == [scene.bob.subject])
                #expect(try await worker.deliverDue() == 0)
                try await scene.allow(scene.bob.subject, [.notifications])
                #expect(Self.strings(try await scene.send([scene.bob.subject], text: "Loud").json["sentTo"]) == [scene.bob.subject])
                #expect(try await worker.deliverDue() == 1)
                let received = fcm.received.withLock { $0 }
                #expect(received.count == 1)
                #expect(received.first?.token == "bobs-phone" && received.first?.title == "Alice" && received.first?.body == "Loud")
                #expect(received.first?.data["type"] == "message" && received.first?.data["miniAppId"] == "shop")
                #expect(try await worker.deliverDue() == 0)
                #expect(try await scene.call(.GET, "/me/inbox", as: scene.bob.token).json["unread"] == .number(2))

                // Issue 47: 4,000 characters of Japanese with a family emoji are 12 KB: the push is
                // cut at a character boundary to fit FCM's 4,096 bytes (FCM refused it before, and
                // the push was lost); the inbox keeps the whole text.
                let long = String(repeating: "あ", count: 1_500) + "👨‍👩‍👧" + String(repeating: "い", count: 2_490)
                #expect(Self.strings(try await scene.send([scene.bob.subject], text: long).json["sentTo"]) == [scene.bob.subject])
                #expect(try await worker.deliverDue() == 1)
                let cut = try #require(fcm.received.withLock { $0 }.last?.body)
                #expect(cut.hasSuffix("\u{2026}") && long.hasPrefix(String(cut.dropLast())), "\(cut.utf8.count) bytes")
                #expect(cut.count > 1_000, "as much of the text as fits: \(cut.count) characters")
                #expect(cut.dropLast().last == "あ", "cut before the emoji, not inside it")
                let inbox = try await scene.call(.GET, "/me/inbox?limit=1", as: scene.bob.token)
                guard case .array(let items)? = inbox.json["items"], case .object(let newest)? = items.first,
                    case .object(let message)? = newest["message"]
                else { throw CancellationError() }
                #expect(message["text"] == .string(long))
            }
        }
    }
}
