import AsyncHTTPClient
import Foundation
import GatewayCore
import Logging
import Testing

@testable import GatewayServer

/// The courier's worker against a real SMTP server on loopback (issue 63 §4), on both engines:
/// a relay that is down gets the message once it is back, exactly once; a refused recipient is
/// the dead letter at once; a tenant without a relay gets nothing; retries run out.
@Suite("Courier delivery", .enabled(if: SMTPSink.available))
struct CourierDeliveryTests {
    static func worker(_ harness: GatewayHarness, clock: ManualClock, maxAttempts: Int = 8) -> CourierDeliveryWorker {
        let tenants = harness.operatorStores.tenants
        return CourierDeliveryWorker(
            outbox: harness.operatorStores.courier, settings: { try await tenants.tenant(id: $0)?.courier },
            mail: CurlSMTPTransport(timeout: .seconds(5)),
            sms: HTTPSMSTransport(client: .shared, timeout: .seconds(5), clock: clock.clock.now),
            guards: UpstreamGuards(), metrics: CourierMetrics(), configuration: .init(retry: RetryPolicy(maxAttempts: maxAttempts, baseDelay: .seconds(1), maxDelay: .seconds(4))),
            clock: clock.clock, logger: Logger(label: "courier-test"))
    }

    /// A transport whose relay refuses with the address in its answer, as many relays word it.
    struct AddressEchoingRelay: MailTransport {
        func send(_ message: MailMessage, via relay: SMTPRelay, messageID: String) async throws {
            throw CourierDeliveryError.permanent("550 5.1.1 <\(message.to.uppercased())>: Recipient address rejected")
        }
    }

    @Test("a refusal that names the address is kept with the address masked")
    func refusalsKeepNoAddress() async throws {
        let clock = ManualClock(Date())
        try await GatewayHarness.withGateway(clock: clock.clock, courier: false) { harness, _, _ in
            try await Self.useRelay(harness, port: 2525)
            let tenants = harness.operatorStores.tenants
            let worker = CourierDeliveryWorker(
                outbox: harness.operatorStores.courier, settings: { try await tenants.tenant(id: $0)?.courier },
                mail: AddressEchoingRelay(), sms: nil, guards: UpstreamGuards(), metrics: CourierMetrics(),
                clock: clock.clock, logger: Logger(label: "courier-test"))
            try await harness.operatorStores.courier.enqueue(Self.code("echo", at: clock.clock.now()))
            #expect(try await worker.deliverDue() == 1)
            let kept = try #require(try await Self.states(harness)["echo"])
            #expect(kept.0 == .failed && kept.2 == "550 5.1.1 <k…@acme.example>: Recipient address rejected", "\(kept)")
        }
    }

    static func code(_ id: String, to: String = "ken@acme.example", at now: Date) -> CourierMessage {
        CourierMessage(
            tenantID: "demo", id: id, channel: .email, purpose: "verify-email", to: to, subject: "Your code",
            text: "Your code is 493021", createdAt: now, expiresAt: now.addingTimeInterval(600))
    }

    static func useRelay(_ harness: GatewayHarness, port: Int) async throws {
        try await harness.operatorStores.tenants.update(id: "demo", actor: "t") {
            $0.courier.smtp = SMTPRelay(url: "smtp://127.0.0.1:\(port)", from: "no-reply@demo.example", startTLS: .off)
        }
    }

    static func states(_ harness: GatewayHarness) async throws -> [String: (CourierState, Int, String?)] {
        let listed = try await harness.operatorStores.courier.messages(tenantID: "demo", state: nil, before: nil, limit: 50)
        return Dictionary(uniqueKeysWithValues: listed.map { ($0.id, ($0.state, $0.attempts, $0.lastError)) })
    }

    @Test(arguments: DatabaseBackend.available)
    func aRelayThatWasDownGetsTheCodeOnceItIsBack(backend: DatabaseBackend) async throws {
        let clock = ManualClock(Date())
        try await GatewayHarness.withGateway(backend: backend, clock: clock.clock, courier: false) { harness, _, _ in
            let port = try await SMTPSink.with(.plain) { $0.port }
            try await Self.useRelay(harness, port: port)
            let worker = Self.worker(harness, clock: clock)
            try await harness.operatorStores.courier.enqueue(Self.code("m-1", at: clock.clock.now()))

            // Down: a transient failure, kept for a retry.
            #expect(try await worker.deliverDue() == 1)
            let first = try #require(try await Self.states(harness)["m-1"])
            #expect(first.0 == .pending && first.1 == 1 && first.2 != nil, "\(first)")
            // Not due yet: nothing is claimed.
            #expect(try await worker.deliverDue() == 0)

            try await SMTPSink.with(.plain, port: port) { sink in
                clock.advance(by: .seconds(5))
                #expect(try await worker.deliverDue() == 1)
                clock.advance(by: .seconds(60))
                #expect(try await worker.deliverDue() == 0, "sent once, never again")
                let received = try sink.received()
                #expect(received.count == 1 && received.first?.to == ["ken@acme.example"])
                #expect(received.first?.data.contains("Message-ID: <m-1@demo.example>") == true)
            }
            let sent = try #require(try await Self.states(harness)["m-1"])
            #expect(sent.0 == .sent && sent.1 == 2 && sent.2 == nil, "\(sent)")
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func deadLettersAndMissingRelays(backend: DatabaseBackend) async throws {
        let clock = ManualClock(Date())
        try await GatewayHarness.withGateway(backend: backend, clock: clock.clock, courier: false) { harness, _, _ in
            let worker = Self.worker(harness, clock: clock, maxAttempts: 2)
            // No relay set: nothing is sent, the message ends failed and says why.
            try await harness.operatorStores.courier.enqueue(Self.code("no-relay", at: clock.clock.now()))
            #expect(try await worker.deliverDue() == 1)
            #expect(try await Self.states(harness)["no-relay"]?.0 == .failed)
            #expect(try await Self.states(harness)["no-relay"]?.2?.contains("not_configured") == true)

            // A recipient the relay refuses (550): the dead letter at once, one attempt.
            try await SMTPSink.with(.reject) { sink in
                try await Self.useRelay(harness, port: sink.port)
                try await harness.operatorStores.courier.enqueue(Self.code("refused", at: clock.clock.now()))
                clock.advance(by: .seconds(6))
                #expect(try await worker.deliverDue() == 1)
            }
            let refused = try #require(try await Self.states(harness)["refused"])
            #expect(refused.0 == .failed && refused.1 == 1 && refused.2?.contains("550") == true, "\(refused)")
            #expect(refused.2?.contains("ken@") == false, "\(refused)")

            // A relay that stays down: retries run out (two attempts), then the dead letter.
            let port = try await SMTPSink.with(.plain) { $0.port }
            try await Self.useRelay(harness, port: port)
            try await harness.operatorStores.courier.enqueue(Self.code("down", at: clock.clock.now()))
            clock.advance(by: .seconds(6))
            #expect(try await worker.deliverDue() == 1)
            clock.advance(by: .seconds(5))
            #expect(try await worker.deliverDue() == 1)
            let down = try #require(try await Self.states(harness)["down"])
            #expect(down.0 == .failed && down.1 == 2 && down.2?.hasPrefix("retries ran out") == true, "\(down)")
        }
    }

    @Test("an SMS through a provider answering 503 arrives once, after the backoff", arguments: DatabaseBackend.available)
    func smsAfterAProviderFault(backend: DatabaseBackend) async throws {
        let clock = ManualClock(Date())
        try await GatewayHarness.withGateway(backend: backend, clock: clock.clock, courier: false) { harness, _, _ in
            try await SMSFake.with(.flaky) { fake in
                try await harness.operatorStores.tenants.update(id: "demo", actor: "t") {
                    $0.courier.sms = SMSTransportTests.twilio(fake)
                }
                let worker = Self.worker(harness, clock: clock)
                let now = clock.clock.now()
                try await harness.operatorStores.courier.enqueue(
                    CourierMessage(
                        tenantID: "demo", id: "sms-1", channel: .sms, purpose: "sign-in", to: "+819012345678",
                        subject: "", text: "493021 is your code", createdAt: now, expiresAt: now.addingTimeInterval(600)))
                #expect(try await worker.deliverDue() == 1)
                let first = try #require(try await Self.states(harness)["sms-1"])
                #expect(first.0 == .pending && first.2?.hasPrefix("status_503 code_20500") == true, "\(first)")
                clock.advance(by: .seconds(5))
                #expect(try await worker.deliverDue() == 1)
                clock.advance(by: .seconds(60))
                #expect(try await worker.deliverDue() == 0, "sent once, never again")
                #expect(try fake.received().map(\.text) == ["493021 is your code"])
                #expect(try await Self.states(harness)["sms-1"]?.0 == .sent)
            }
        }
    }
}
