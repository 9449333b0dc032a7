import Foundation
import GatewayAPI
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// E-mail sign-up over HTTP end to end (issue 63): a native app registers with an address, the
/// gateway's courier sends the code through the tenant's relay (a real SMTP server on
/// loopback), the app reads it from the mail and finishes with tokens for a user holding the
/// address.
@Suite("Journey endpoints: e-mail sign-up through the relay", .enabled(if: SMTPSink.available))
struct JourneyEmailSignUpEndpointTests {
    /// The text of a received message: its base64 body decoded.
    static func body(_ data: String) -> String {
        let parts = data.components(separatedBy: "\r\n\r\n").count > 1
            ? data.components(separatedBy: "\r\n\r\n") : data.components(separatedBy: "\n\n")
        let encoded = parts.dropFirst().joined().components(separatedBy: .whitespacesAndNewlines).joined()
        return Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    @Test("register in Japanese, the code from the mail, then tokens for a user holding the address")
    func signUpWithACodeFromTheMail() async throws {
        try await SMTPSink.with(.plain) { sink in
            try await GatewayHarness.withGateway { harness, client, port in
                var kit = OAuthTestKit(harness: harness, client: client, port: port)
                kit.clientID = "journey-" + UUID().uuidString.prefix(6).lowercased()
                var tenant = Tenant(id: "em-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Acme")
                tenant.journeys = JourneySettings(signUp: true, identifiers: [.email], verify: [.email])
                tenant.courier.smtp = SMTPRelay(
                    url: "smtp://127.0.0.1:\(sink.port)", from: "no-reply@acme.example", startTLS: .off)
                try await harness.createTenant(tenant, signIn: false)
                kit.tenant = tenant.id
                try await kit.setUp()

                let first = try await JourneyEndpointTests.start(kit, kind: .signUp, uiLocales: "ja").created.body.json
                #expect(first.screen.name == "register" && first.screen.fields.map(\.name) == ["email", "name", "password"])
                let sent = try JourneyEndpointTests.screen(
                    try await JourneyEndpointTests.step(
                        kit, first.id, "submit", ["email": "Mika@Acme.example", "password": "a long enough one"]))
                #expect(sent.screen.name == "code" && sent.screen.actions.map(\.name) == ["submit", "resend", "back"])
                #expect(sent.screen.messages.first?.text == "m…@acme.example にコードを送信しました。10分間有効です。")

                #expect(await eventually(within: .seconds(15)) { (try? sink.received().count) == 1 })
                let mail = try #require(try sink.received().first)
                #expect(mail.to == ["mika@acme.example"])
                let text = Self.body(mail.data)
                let code = try #require(text.firstMatch(of: /[0-9]{6}/).map { String($0.output) }, "\(text)")
                #expect(text.hasPrefix("確認コードは \(code) です。"))

                guard case .JourneyFinished(let finished) = try await JourneyEndpointTests.step(
                    kit, first.id, "submit", ["code": code]).ok.body.json
                else {
                    Issue.record("the code from the mail did not finish the journey")
                    return
                }
                let tokens = try await kit.exchangeWithoutRedirect(finished.authorizationCode).ok.body.json
                let user = try #require(try await kit.store.user(tenantID: tenant.id, username: "mika@acme.example"))
                #expect(user.email == "mika@acme.example")
                #expect(try jwtClaims(try #require(tokens.idToken))["sub"]?.stringValue == user.subject)
                let sentMessages = try await harness.operatorStores.courier.messages(
                    tenantID: tenant.id, state: .sent, before: nil, limit: 5)
                #expect(sentMessages.map(\.recipient) == ["m…@acme.example"])
            }
        }
    }

    @Test("the relay down during a sign-up: the code arrives once it is back, once, and finishes the sign-up")
    func relayDownDuringSignUp() async throws {
        let port = try await SMTPSink.with(.plain) { $0.port }  // a port nothing listens on now
        try await GatewayHarness.withGateway { harness, client, gatewayPort in
            var setup = OAuthTestKit(harness: harness, client: client, port: gatewayPort)
            setup.clientID = "journey-" + UUID().uuidString.prefix(6).lowercased()
            var tenant = Tenant(id: "down-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Acme")
            tenant.journeys = JourneySettings(signUp: true, identifiers: [.email], verify: [.email])
            tenant.courier.smtp = SMTPRelay(url: "smtp://127.0.0.1:\(port)", from: "no-reply@acme.example", startTLS: .off)
            try await harness.createTenant(tenant, signIn: false)
            setup.tenant = tenant.id
            try await setup.setUp()
            let (kit, tenantID) = (setup, tenant.id)

            let first = try await JourneyEndpointTests.start(kit, kind: .signUp).created.body.json
            let sent = try JourneyEndpointTests.screen(
                try await JourneyEndpointTests.step(
                    kit, first.id, "submit", ["email": "rin@acme.example", "password": "a long enough one"]))
            #expect(sent.screen.name == "code", "the journey goes on: the code waits in the outbox")
            // The worker tried and failed: the message waits for a retry.
            #expect(
                await eventually(within: .seconds(10)) {
                    let waiting = try? await harness.operatorStores.courier.messages(
                        tenantID: tenantID, state: .pending, before: nil, limit: 5)
                    return waiting?.first?.attempts == 1
                })
            try await SMTPSink.with(.plain, port: port) { sink in
                #expect(await eventually(within: .seconds(20)) { (try? sink.received().count) == 1 })
                let text = Self.body(try #require(try sink.received().first).data)
                let code = try #require(text.firstMatch(of: /[0-9]{6}/).map { String($0.output) })
                guard case .JourneyFinished = try await JourneyEndpointTests.step(
                    kit, first.id, "submit", ["code": code]).ok.body.json
                else { Issue.record("the code from the late mail did not finish the sign-up"); return }
                // Delivered once: the one message is recorded sent (a sent message is never
                // claimed again), and the relay holds one mail.
                #expect(
                    await eventually(within: .seconds(10)) {
                        let listed = try? await harness.operatorStores.courier.messages(
                            tenantID: tenantID, state: nil, before: nil, limit: 5)
                        return listed?.count == 1 && listed?.first?.state == .sent && (listed?.first?.attempts ?? 0) >= 2
                    })
                #expect(try sink.received().count == 1)
            }
            #expect(try await kit.store.user(tenantID: tenantID, username: "rin@acme.example") != nil)
        }
    }
}
