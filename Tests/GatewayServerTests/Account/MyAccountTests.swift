import AsyncHTTPClient
import Foundation
import GatewayAPI
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// My account over HTTP (issue 63 §7): the host app shows the signed-in user their account and
/// lets them change it: a new e-mail address and phone number proved by codes the courier sends
/// through a real SMTP server and a fake Twilio, one removed, a session ended, the password
/// changed and the account deleted after a fresh sign-in, each change in the audit trail with
/// the user as actor; another client's token opens none of it.
@Suite("My account")
struct MyAccountTests {
    @Test("the overview, a new address and number proved by codes, one removed, a session ended, all audited")
    func identifiersAndSessions() async throws {
        try await SMTPSink.with(.plain) { sink in
            try await SMSFake.with { sms in
                try await GatewayHarness.withGateway { harness, client, port in
                    var kit = OAuthTestKit(harness: harness, client: client, port: port)
                    try await kit.useTenant(
                        journeys: JourneySettings(identifiers: [.username, .email, .phone]), smtpPort: sink.port, sms: sms)
                    try await kit.setUp()
                    let older = try await kit.tokens()
                    let tokens = try await kit.tokens()
                    let api = kit.authorizedClient("Bearer \(tokens.accessToken)")
                    let path = Operations.GetAccount.Input.Path(tenant: kit.tenant)

                    let shown = try await api.getAccount(path: path).ok.body.json
                    #expect(shown.username == kit.username && shown.email == "alice@example.test")
                    #expect(!shown.emailVerified && !shown.phoneVerified && shown.password && !shown.totp)
                    #expect(shown.sessions.count == 2 && shown.sessions.allSatisfy { $0.clientId == kit.clientID })

                    // A new address: a code to it, a wrong one refused with the tries left, the right one.
                    let sent = try await api.sendAccountIdentifierCode(
                        path: .init(tenant: kit.tenant), body: .json(.init(_type: .email, value: " Hana@Acme.example ")))
                    #expect(try sent.accepted.body.json.value == "hana@acme.example")
                    #expect(await eventually(within: .seconds(15)) { (try? sink.received().count) == 1 })
                    let mail = try #require(try sink.received().first)
                    #expect(mail.to == ["hana@acme.example"])
                    let text = JourneyEmailSignUpEndpointTests.body(mail.data)
                    let code = try #require(text.firstMatch(of: /[0-9]{6}/).map { String($0.output) }, "\(text)")
                    let wrong = code == "000000" ? "000001" : "000000"
                    let refused = try await api.verifyAccountIdentifier(
                        path: .init(tenant: kit.tenant),
                        body: .json(.init(_type: .email, value: "hana@acme.example", code: wrong)))
                    #expect(try refused.unprocessableContent.body.applicationProblemJson.code == "invalid_code")
                    let proved = try await api.verifyAccountIdentifier(
                        path: .init(tenant: kit.tenant),
                        body: .json(.init(_type: .email, value: "hana@acme.example", code: code))
                    ).ok.body.json
                    #expect(proved.email == "hana@acme.example" && proved.emailVerified)

                    // A number, written as people do, proved by the SMS.
                    _ = try await api.sendAccountIdentifierCode(
                        path: .init(tenant: kit.tenant), body: .json(.init(_type: .phone, value: "+81 90-1111-2222"))
                    ).accepted
                    #expect(await eventually(within: .seconds(15)) { (try? sms.received().count) == 1 })
                    let message = try #require(try sms.received().first)
                    #expect(message.to == "+819011112222")
                    let smsCode = try #require(message.text.firstMatch(of: /[0-9]{6}/).map { String($0.output) })
                    let withPhone = try await api.verifyAccountIdentifier(
                        path: .init(tenant: kit.tenant),
                        body: .json(.init(_type: .phone, value: "+819011112222", code: smsCode))
                    ).ok.body.json
                    #expect(withPhone.phone == "+819011112222" && withPhone.phoneVerified)
                    // A country the tenant does not send to: nothing goes out.
                    let elsewhere = try await api.sendAccountIdentifierCode(
                        path: .init(tenant: kit.tenant), body: .json(.init(_type: .phone, value: "+12025550123")))
                    #expect(try elsewhere.conflict.body.applicationProblemJson.code == "channel_unavailable")

                    let removed = try await api.removeAccountIdentifier(
                        path: .init(tenant: kit.tenant, _type: .phone)
                    ).ok.body.json
                    #expect(removed.phone == nil && !removed.phoneVerified)
                    let stored = try #require(try await kit.store.user(tenantID: kit.tenant, username: kit.username))
                    #expect(stored.email == "hana@acme.example" && stored.emailVerified && stored.phone == nil)

                    // The older session ends: its refresh token is refused, this one's still works.
                    let olderSession = try #require(
                        withPhone.sessions.first { $0.id != withPhone.sessions.first?.id }?.id)
                    _ = try await api.endAccountSession(
                        path: .init(tenant: kit.tenant, sessionId: olderSession)
                    ).noContent
                    let gone = try await api.endAccountSession(path: .init(tenant: kit.tenant, sessionId: olderSession))
                    #expect(try gone.notFound.body.applicationProblemJson.code == "session_not_found")
                    let refreshed = [
                        try await kit.refresh(older.issuedRefreshToken), try await kit.refresh(tokens.issuedRefreshToken),
                    ]
                    #expect(refreshed.map { (try? $0.ok) != nil } == [false, true])

                    let records = try await harness.operatorStores.audit.records(
                        matching: AuditQuery(chain: kit.tenant, resourceType: .user)
                    ).items
                    let user = try #require(try await kit.store.user(tenantID: kit.tenant, username: kit.username))
                    #expect(
                        records.compactMap(\.note?.action).reversed()
                            == ["verify-email", "verify-phone", "remove-phone", "end-session"])
                    #expect(records.allSatisfy { $0.actor.subject == "user:\(user.subject)" })
                    let rendered = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
                    #expect(!rendered.contains(code) && !rendered.contains(smsCode), "no code in the trail")
                }
            }
        }
    }

    @Test("the password and the account need the current password or a fresh sign-in; a third party opens nothing")
    func credentialsNeedAFreshSignIn() async throws {
        let time = ManualClock(Date())
        try await GatewayHarness.withGateway(clock: time.clock) { harness, client, port in
            var kit = OAuthTestKit(harness: harness, client: client, port: port)
            kit.clientID = "host-" + UUID().uuidString.prefix(6).lowercased()
            try await kit.setUp { $0.accessTokenLifetimeSeconds = 3_600 }
            let tokens = try await kit.tokens()
            let api = kit.authorizedClient("Bearer \(tokens.accessToken)")
            let tenant = kit.tenant
            let path = Operations.ChangeAccountPassword.Input.Path(tenant: tenant)

            // Six minutes after the sign-in: the current password is needed, and checked.
            time.advance(by: .seconds(360))
            let stale = try await api.changeAccountPassword(path: path, body: .json(.init(newPassword: "a new long one")))
            #expect(try stale.forbidden.body.applicationProblemJson.code == "reauthentication_required")
            let wrong = try await api.changeAccountPassword(
                path: path, body: .json(.init(currentPassword: "not it at all", newPassword: "a new long one")))
            #expect(try wrong.unprocessableContent.body.applicationProblemJson.code == "invalid_password")
            let short = try await api.changeAccountPassword(
                path: path, body: .json(.init(currentPassword: kit.password, newPassword: "short")))
            #expect(try short.unprocessableContent.body.applicationProblemJson.code == "invalid_account_change")
            _ = try await api.changeAccountPassword(
                path: path, body: .json(.init(currentPassword: kit.password, newPassword: "a new long one"))
            ).noContent
            var signIn = kit
            signIn.password = "a new long one"
            let fresh = try await signIn.tokens()
            #expect((try? await kit.nativeLogin(kit.form()).ok) == nil, "the old password no longer signs in")

            // A client that is not the host app: no `account` scope, not even asked for.
            var other = kit
            other.clientID = "web-" + UUID().uuidString.prefix(6).lowercased()
            try await other.setUp { $0.firstParty = false }
            // The user allowed it earlier (a third party signs in only with consent).
            let subject = try #require(try await kit.store.user(tenantID: tenant, username: kit.username)).subject
            try await kit.store.grant(
                Set(APIScope.identity), tenantID: tenant, subject: subject, clientID: other.clientID, at: Date())
            var otherSignIn = other
            otherSignIn.password = "a new long one"
            let thirdParty = try await otherSignIn.tokens()
            let denied = try await kit.authorizedClient("Bearer \(thirdParty.accessToken)").getAccount(
                path: .init(tenant: tenant))
            #expect(try denied.forbidden.body.applicationProblemJson.code == "insufficient_scope")

            // The fresh sign-in deletes the account without a password: its tokens stop working.
            let freshAPI = kit.authorizedClient("Bearer \(fresh.accessToken)")
            _ = try await freshAPI.deleteAccount(path: .init(tenant: tenant), body: .json(.init())).noContent
            #expect(try await kit.store.user(tenantID: tenant, username: kit.username) == nil)
            let after = try await freshAPI.getAccount(path: .init(tenant: tenant))
            #expect((try? after.ok) == nil)
            #expect((try? await kit.refresh(fresh.issuedRefreshToken).ok) == nil)
        }
    }
}
