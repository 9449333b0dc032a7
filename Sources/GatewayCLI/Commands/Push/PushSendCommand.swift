import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl push send --tenant T --user SUBJECT --miniapp ID --title T --body B [--wait 30]`
struct PushSendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Queue a test notification to a user's devices (consent applies).",
        discussion: """
            Queues one message from the operator (sender `gatewayctl`) to the user's devices, \
            only where the user allows gateway.user.NOTIFICATIONS for the mini app, as a sender's \
            message would be (over the admin API the sender is operator:<name>). A running \
            gateway's delivery worker sends it; with --wait the command polls until no delivery \
            is pending (or the time is up) and prints the counts.
            """)

    @OptionGroup var tenant: TenantOption
    @Option(help: "The user (token subject).") var user: String
    @Option(name: .customLong("miniapp"), help: "The mini app the notification comes from.") var miniApp: String
    @Option(help: "Title.") var title: String
    @Option(help: "Body.") var body: String
    @Option(help: "Seconds to wait for the deliveries' outcome (0: do not wait).") var wait: Int = 0
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try checkText(user, flag: "--user")
        try checkText(miniApp, flag: "--miniapp")
        guard (0...600).contains(wait) else { throw ValidationError("--wait must be 0-600 seconds") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        var report: NotificationSendReport
        let counts: () async throws -> DeliveryCounts
        if let remote = try await AdminRemote.select(global, context: context) {
            report = try await remote.sendNotification(
                tenantID: tenant.tenant,
                .init(miniAppID: miniApp, userIDs: [user], texts: .init(additionalProperties: ["default": .init(title: title, body: body)])))
            let id = report.id
            counts = { try await remote.notification(tenantID: tenant.tenant, id: id).counts }
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let stores = state.access.stores
            let sender = SenderTokenClaims(
                clientID: "gatewayctl", tenantID: tenant.tenant, scopes: [NotificationService.sendScope],
                miniApps: [miniApp], jti: "gatewayctl", expiresAt: .distantFuture)
            let service = NotificationService(outbox: stores.outbox, domains: stores.domains)
            let (tenantID, actor, now) = (tenant.tenant, AuditActor.local(user: state.access.actor), Date())
            let outcome: EnqueueOutcome
            do {
                outcome = try await service.send(
                    PushContent(
                        miniAppID: miniApp, recipients: .users([user]),
                        texts: ["default": PushText(title: title, body: body)]),
                    from: sender, idempotencyKey: nil
                ) { id, deliveries in
                    AuditDraft(
                        time: now, actor: actor, verb: .act, resource: AuditResource(type: .notification, tenant: tenantID, id: id),
                        outcome: AuditOutcome(status: 202),
                        change: AuditChange(before: nil, after: .object(["miniAppID": .string(miniApp), "deliveries": .number(Double(deliveries))])))
                }
            } catch let error as NotificationError {
                throw CLIError.invalid(error.description)
            }
            guard case .queued(let id, let deliveries) = outcome else { throw CLIError.failure("not queued") }
            report = NotificationSendReport(id: id, deliveries: deliveries)
            counts = { DeliveryCounts(try await service.status(of: id, sender: sender).counts) }
        }
        if wait > 0 {
            let deadline = ContinuousClock.now + .seconds(wait)
            var now = try await counts()
            while now.pending > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(250))
                now = try await counts()
            }
            report.counts = [
                "pending": now.pending, "sent": now.sent, "skipped_no_consent": now.skippedNoConsent,
                "invalid_token": now.invalidToken, "failed": now.failed, "expired": now.expired,
            ]
        }
        let summary = report.counts.map { counts in
            " — " + counts.sorted { $0.key < $1.key }.filter { $0.value > 0 }.map { "\($0.key) \($0.value)" }
                .joined(separator: ", ")
        } ?? ""
        try context.report(
            "queued \(report.id) for \(report.deliveries) device(s) of \(user) in tenant \(tenant.tenant)\(summary)",
            document: report, json: global.json)
    }
}
