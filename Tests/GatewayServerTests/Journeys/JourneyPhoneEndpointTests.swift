import Foundation
import GatewayAPI
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// Signing in with a phone number and an SMS code over HTTP end to end (issue 63): a native app
/// types the number, the gateway's courier sends the code through the tenant's provider (a fake
/// that follows Twilio's Messages API), the app reads it from what the provider received and
/// finishes with tokens for the user holding the number; the SMS is in the tenant's own wording;
/// a number in a country the tenant does not allow gets nothing.
@Suite("Journey endpoints: sign-in by SMS code through a provider")
struct JourneyPhoneEndpointTests {
    @Test("a number, the code from the SMS, then tokens; a country not allowed is refused beside the field")
    func signInWithAnSMSCode() async throws {
        try await SMSFake.with { fake in
            try await GatewayHarness.withGateway { harness, client, port in
                var kit = OAuthTestKit(harness: harness, client: client, port: port)
                kit.clientID = "journey-" + UUID().uuidString.prefix(6).lowercased()
                var tenant = Tenant(id: "sms-" + UUID().uuidString.prefix(8).lowercased(), displayName: "Acme")
                tenant.journeys = JourneySettings(identifiers: [.username, .phone], factors: [.password, .smsCode])
                tenant.courier.sms = SMSSettings(
                    provider: .twilio, url: fake.url, accountSid: SMSFake.accountSid,
                    authToken: SecretValue(SMSFake.authToken), from: "+15005550006", allowedCountries: ["81"])
                try await harness.createTenant(tenant, signIn: false)
                // The tenant's own wording of the SMS, in English (its Japanese is untouched).
                _ = try await harness.operatorStores.localization.set(
                    ["courier.sms.code": "{tenant}: {code} is your code. Do not share it."], tenantID: tenant.id,
                    locale: "en")
                kit.tenant = tenant.id
                try await kit.setUp()
                _ = try await kit.store.writeUser(tenantID: tenant.id, username: kit.username, trail: nil) {
                    var user = $0
                    user.phone = "+819012345678"
                    return user
                }

                let first = try await JourneyEndpointTests.start(kit, kind: .signIn).created.body.json
                let screen = try await JourneyEndpointTests.step(
                    kit, first.id, "submit", ["identifier": "+12025550123"]
                ).unprocessableContent.body.json
                #expect(screen.screen.messages.map(\.field) == ["identifier"])
                #expect(screen.screen.messages.first?.text == "We cannot send codes to numbers in that country.")

                let sent = try JourneyEndpointTests.screen(
                    try await JourneyEndpointTests.step(kit, first.id, "submit", ["identifier": "+81 90 1234 5678"]))
                #expect(sent.screen.name == "code" && sent.screen.actions.map(\.name) == ["submit", "resend", "back"])
                #expect(sent.screen.messages.first?.text == "We sent a code to +81…5678. It is good for 10 minutes.")

                #expect(await eventually(within: .seconds(15)) { (try? fake.received().count) == 1 })
                let sms = try #require(try fake.received().first)
                #expect(sms.api == "twilio" && sms.to == "+819012345678" && sms.from == "+15005550006")
                let code = try #require(sms.text.firstMatch(of: /[0-9]{6}/).map { String($0.output) }, "\(sms.text)")
                #expect(sms.text == "Acme: \(code) is your code. Do not share it.")

                guard case .JourneyFinished(let finished) = try await JourneyEndpointTests.step(
                    kit, first.id, "submit", ["code": code]).ok.body.json
                else { Issue.record("the code from the SMS did not finish the journey"); return }
                let tokens = try await kit.exchangeWithoutRedirect(finished.authorizationCode).ok.body.json
                let user = try #require(try await kit.store.user(tenantID: tenant.id, username: kit.username))
                #expect(try jwtClaims(try #require(tokens.idToken))["sub"]?.stringValue == user.subject)
                #expect(try fake.received().count == 1, "the refused country got nothing")
                let listed = try await harness.operatorStores.courier.messages(
                    tenantID: tenant.id, state: nil, before: nil, limit: 5)
                #expect(listed.map { "\($0.channel.rawValue) \($0.recipient) \($0.state.rawValue)" } == ["sms +81…5678 sent"])
            }
        }
    }
}
