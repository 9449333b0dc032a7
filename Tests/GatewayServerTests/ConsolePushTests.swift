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
            let service = OperatorService(operators: admin.stores.operators, hasher: PasswordHasher(logN: 10))
            for (name, role) in [("pat", OperatorRole.pushSender), ("rita", .releaseManager)] {
                _ = try await service.create(
                    name: name, credential: .password("correct horse battery"), roles: [(role, "acme")],
                    actor: .local(user: "t"))
            }
            var sender = ConsoleTests.Browser(admin: admin)
            _ = try await sender.signIn("pat")
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
            #expect(try await sender.request(.GET, "/console/t/acme/notifications/nope").status == 404)
            #expect(try await sender.request(.GET, "/console/t/beta/notifications").status == 404)
            #expect(try await sender.request(.GET, "/console/t/NOT_A_TENANT/notifications").status == 400)

            // A release manager reads no notification.
            var releaser = ConsoleTests.Browser(admin: admin)
            _ = try await releaser.signIn("rita")
            #expect(try await releaser.request(.GET, "/console/t/acme/notifications").status == 403)
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
