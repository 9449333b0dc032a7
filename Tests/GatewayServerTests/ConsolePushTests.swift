import Foundation
import GatewayCore
import Testing

@testable import GatewayServer

/// The console's push pages (issue 49) on both engines: a tenant's notifications with their
/// funnels, one notification's funnel drawn as a chart with words, and what roles see.
@Suite("Operator console: push")
struct ConsolePushTests {
    @Test(arguments: DatabaseBackend.available)
    func notificationsAndTheirFunnel(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let now = Date()
            for n in 0..<3 {
                _ = try await admin.stores.devices.register(
                    PushDevice(
                        id: "dev-\(n)", tenantID: "acme", userID: "alice", provider: .fcm, token: "fcm-\(n)",
                        platform: .android, createdAt: now, updatedAt: now), maxPerUser: 20)
            }
            let owner = UserMiniAppKey(tenantID: "acme", userID: "alice", miniAppID: "hello")
            try await admin.stores.consents.touch(owner)
            _ = try await admin.stores.consents.setConsents(
                [CustomPermission.notifications.rawValue: .allowed], for: owner)
            _ = try await admin.stores.outbox.enqueue(
                PushMessage(
                    id: "msg-1", tenantID: "acme", clientID: "crm",
                    content: PushContent(
                        miniAppID: "hello", recipients: .users(["alice"]),
                        texts: ["default": .init(title: "t", body: "b")]),
                    createdAt: now), idempotencyKey: nil, requestHash: "h")
            try await ConsoleTests.people(
                admin.stores, [("pat", .pushSender, "acme"), ("rita", .releaseManager, "acme")])
            var sender = ConsoleTests.Browser(admin: admin)
            _ = try await sender.signIn("pat")
            // The overview's backlog: msg-1's three deliveries wait for a provider.
            let overview = try await sender.request(.GET, "/console")
            #expect(overview.body.contains("<a href=\"/console/t/acme/notifications\">3 pending</a>"), "\(overview.body)")
            let list = try await sender.request(.GET, "/console/t/acme/notifications")
            #expect(list.status == 200, "\(list.body)")
            #expect(
                list.body.contains("<a href=\"/console/t/acme/notifications/msg-1\">msg-1</a>")
                    && list.body.contains("<td>crm</td>"))
            let one = try await sender.request(.GET, "/console/t/acme/notifications/msg-1")
            #expect(
                one.status == 200 && one.body.contains("<svg role=\"img\" aria-labelledby=\"funnel-title\""),
                "\(one.body)")
            #expect(one.body.contains("Of 3 deliveries queued, 0 were accepted by the provider (0.0 %)"))
            #expect(one.body.contains("3 are pending") && one.body.contains("<td>dev-0</td>"))
            // By provider: all three are FCM devices; no APNs funnel.
            #expect(one.body.contains("<h3>FCM (Android)</h3><svg role=\"img\" aria-labelledby=\"funnel-fcm-title\""))
            #expect(!one.body.contains("APNs (iOS)"))
            #expect(try await sender.request(.GET, "/console/t/acme/notifications/nope").status == 404)
            #expect(try await sender.request(.GET, "/console/t/beta/notifications").status == 404)
            #expect(try await sender.request(.GET, "/console/t/NOT_A_TENANT/notifications").status == 400)

            // The send form: a preview per locale and provider, then one send per preview.
            #expect(list.body.contains("<form method=\"post\" class=\"send\">"))
            let csrf = try #require(ConsoleTests.Browser.csrf(list.body))
            let long = String(repeating: "あ", count: 1_500)
            let draft =
                "csrf_token=\(csrf)&mini_app=hello&users=alice&title=Sale&body=Today+only"
                + "&locale_2=ja&title_2=%E3%82%BB%E3%83%BC%E3%83%AB&body_2=\(URLQuery.encode(long))&locale_3="
            let preview = try await sender.request(.POST, "/console/t/acme/notifications", form: draft)
            #expect(preview.status == 200, "\(preview.body)")
            #expect(preview.body.contains("To 1 named users, for hello"))
            #expect(preview.body.components(separatedBy: "<figure class=\"device\">").count - 1 == 4)
            #expect(preview.body.contains("<strong>セール</strong>") && preview.body.contains("cut here to fit"))
            #expect(try await admin.stores.outbox.messages(tenantID: "acme", before: nil, limit: 10).count == 1)
            let key = try #require(
                preview.body.range(of: #"name="key" value="([^"]+)""#, options: .regularExpression).map {
                    String(preview.body[$0].dropFirst(#"name="key" value=""#.count).dropLast())
                })
            let confirmed = draft + "&key=\(key)&confirm=yes"
            let sent = try await sender.request(.POST, "/console/t/acme/notifications", form: confirmed)
            let location = try #require(sent.headers["Location"].first)
            #expect(sent.status == 303 && location.hasPrefix("/console/t/acme/notifications/"), "\(sent.body)")
            let again = try await sender.request(.POST, "/console/t/acme/notifications", form: confirmed)
            #expect(again.headers["Location"].first == location)
            let messages = try await admin.stores.outbox.messages(tenantID: "acme", before: nil, limit: 10)
            #expect(messages.count == 2)
            let stored = try await admin.stores.outbox.status(
                tenantID: "acme", clientID: nil, messageID: String(location.split(separator: "/").last!), limit: 1)
            #expect(stored?.message.content.texts["ja"]?.body == long)
            // Refused by the rules: the form again with why; without the token: nothing.
            let bad = try await sender.request(
                .POST, "/console/t/acme/notifications", form: "csrf_token=\(csrf)&mini_app=hello&users=alice&title=")
            #expect(bad.status == 422 && bad.body.contains("a title is 1-256 characters"), "\(bad.body)")
            #expect(
                try await sender.request(.POST, "/console/t/acme/notifications", form: "csrf_token=x&mini_app=hello")
                    .status == 403)

            // A release manager reads no notification.
            var releaser = ConsoleTests.Browser(admin: admin)
            _ = try await releaser.signIn("rita")
            #expect(try await releaser.request(.GET, "/console/t/acme/notifications").status == 403)
            let releaserPage = try await releaser.request(.GET, "/console")
            let releaserCSRF = try #require(ConsoleTests.Browser.csrf(releaserPage.body))
            let forged = try await releaser.request(
                .POST, "/console/t/acme/notifications",
                form: "csrf_token=\(releaserCSRF)&mini_app=hello&users=alice&title=x&key=k&confirm=yes")
            #expect(forged.status == 403)
            #expect(try await admin.stores.outbox.messages(tenantID: "acme", before: nil, limit: 10).count == 2)
        }
    }

    @Test func theFunnelIsDrawnToScaleAndSaidInWords() {
        var counts = DeliveryCounts([:])
        (counts.sent, counts.failed, counts.invalidToken, counts.pending) = (80, 5, 10, 5)
        let svg = ConsoleChart.funnel(counts, texts: ConsoleTexts.negotiate([:]))
        #expect(
            svg.contains(
                "Of 100 deliveries queued, 80 were accepted by the provider (80.0 %); 5 failed or expired, 10 had invalid tokens (removed), 5 are pending"
            ))
        // Bars are as long as their share of the queued: 100 % is the whole bar (380), 80 % of it 304.
        #expect(svg.contains("<rect class=\"queued\" x=\"200.0\" y=\"8.0\" width=\"380.0\""))
        #expect(svg.contains("<rect class=\"sent\" x=\"200.0\" y=\"36.0\" width=\"304.0\""))
        let empty = ConsoleChart.funnel(DeliveryCounts([:]), texts: ConsoleTexts.negotiate([:]))
        #expect(empty.contains("Of 0 deliveries queued") && empty.contains("width=\"0.0\""))
    }
}
