import Foundation
import GatewayCore
import Testing

/// The tenant's courier settings over the admin API (issue 63 §4): set by merge patch, secrets
/// write-only (masked in answers and the trail, kept when a patch leaves them out), a channel
/// removed by an empty url, bad settings refused naming the member, on both engines.
@Suite("Courier settings over the admin API")
struct AdminTenantCourierTests {
    @Test(arguments: DatabaseBackend.available)
    func setKeepAndRemove(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let body = """
                {"courier": {
                  "smtp": {"url": "smtp://127.0.0.1:2525", "from": "no-reply@acme.example", "startTLS": "off",
                           "username": "mailer", "password": "smtp-secret-0042"},
                  "sms": {"provider": "twilio", "url": "https://api.twilio.example", "accountSid": "AC42",
                          "authToken": "sms-token-secret-0042", "from": "+15005550006", "allowedCountries": ["81", "1"]}}}
                """
            let patched = try await admin.call(.PATCH, "/admin/v1/tenants/acme", token: admin.tokens["acme-admin"], body: body)
            #expect(patched.status == 200, "\(patched.json)")
            let text = AdminTenantAPITests.text(patched)
            #expect(!text.contains("smtp-secret-0042") && !text.contains("sms-token-secret-0042"))
            let courier = try #require(patched.json["courier"] as? [String: Any])
            let smtp = try #require(courier["smtp"] as? [String: Any])
            #expect(smtp["startTLS"] as? String == "off" && smtp["username"] as? String == "mailer")
            #expect((smtp["password"] as? [String: Any])?["masked"] != nil)
            let sms = try #require(courier["sms"] as? [String: Any])
            #expect(sms["perCountryPerHour"] as? Int == 1000 && sms["allowedCountries"] as? [String] == ["81", "1"])

            // Secrets reach the store; a later patch that leaves them out keeps them.
            let kept = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"],
                body: #"{"courier": {"smtp": {"from": "hello@acme.example"}, "sms": {"perCountryPerHour": 50}}}"#)
            #expect(kept.status == 200, "\(kept.json)")
            var stored = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            #expect(stored.courier.smtp?.from == "hello@acme.example")
            #expect(stored.courier.smtp?.password?.plaintext == "smtp-secret-0042")
            #expect(stored.courier.sms?.authToken?.plaintext == "sms-token-secret-0042")
            #expect(stored.courier.sms?.perCountryPerHour == 50 && stored.courier.sms?.allowedCountry(of: "+819012345678") == "81")
            #expect(stored.courier.sms?.allowedCountry(of: "+447700900123") == nil)

            // The trail names the changed fields, secrets masked.
            let records = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .tenant, limit: 5)).items
            let trail = String(decoding: try JSONEncoder().encode(records.map(\.change)), as: UTF8.self)
            #expect(trail.contains("courier") && !trail.contains("smtp-secret-0042") && !trail.contains("sms-token-secret-0042"))

            // A secret never follows the relay or the provider elsewhere unless given again.
            for (body, field) in [
                (#"{"courier": {"smtp": {"url": "smtp://127.0.0.2:2525"}}}"#, "courier.smtp.password"),
                (#"{"courier": {"sms": {"url": "https://sms.elsewhere.example"}}}"#, "courier.sms.authToken"),
                (#"{"courier": {"sms": {"provider": "webhook"}}}"#, "courier.sms.authToken"),
            ] {
                let refused = try await admin.call(.PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: body)
                #expect(refused.status == 422 && (refused.json["detail"] as? String)?.contains(field) == true, "\(refused.json)")
            }
            let samePlace = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"],
                body: #"{"courier": {"smtp": {"url": "smtp://127.0.0.1:2526"}}}"#)
            #expect(samePlace.status == 200, "another port on the same host keeps the password: \(samePlace.json)")
            let moved = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"],
                body: #"{"courier": {"smtp": {"url": "smtp://localhost:2525", "password": "smtp-secret-0043"}}}"#)
            #expect(moved.status == 200, "\(moved.json)")

            // An empty url removes the channel, its secret with it.
            let removed = try await admin.call(
                .PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: #"{"courier": {"smtp": {"url": ""}}}"#)
            #expect(removed.status == 200 && (removed.json["courier"] as? [String: Any])?["smtp"] == nil, "\(removed.json)")
            stored = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            #expect(stored.courier.smtp == nil && stored.courier.sms != nil)
        }
    }

    @Test(arguments: DatabaseBackend.available)
    func badSettingsAreRefusedNamingTheMember(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let before = try #require(try await admin.stores.tenants.tenant(id: "acme"))
            for (body, status, field) in [
                (#"{"courier": {"smtp": {"url": "smtp://mail.example.com", "from": "a@acme.example", "startTLS": "off"}}}"#,
                 422, "courier.smtp.startTLS"),
                (#"{"courier": {"smtp": {"url": "http://mail.example.com", "from": "a@acme.example"}}}"#, 422, "courier.smtp.url"),
                (#"{"courier": {"smtp": {"url": "smtp://mail.example.com", "from": "a@acme.example\r\nBcc: x@y.example"}}}"#,
                 422, "courier.smtp.from"),
                (#"{"courier": {"smtp": {"from": "a@acme.example"}}}"#, 422, "courier.smtp.url"),
                (#"{"courier": {"smtp": {"url": "smtps://mail.example.com", "from": "a@acme.example", "password": "p-0123456789"}}}"#,
                 422, "courier.smtp.username"),
                (#"{"courier": {"sms": {"provider": "twilio", "url": "https://api.twilio.example", "authToken": "0123456789abcdef", "from": "+15005550006", "allowedCountries": ["81"]}}}"#,
                 422, "courier.sms.accountSid"),
                (#"{"courier": {"sms": {"provider": "webhook", "url": "http://sms.example.com/send", "authToken": "0123456789abcdef", "from": "Acme", "allowedCountries": ["81"]}}}"#,
                 422, "courier.sms.url"),
                (#"{"courier": {"sms": {"provider": "webhook", "url": "https://sms.example.com/send", "from": "Acme", "allowedCountries": ["81"]}}}"#,
                 422, "courier.sms.authToken"),
                (#"{"courier": {"sms": {"provider": "webhook", "url": "https://sms.example.com/send", "authToken": "0123456789abcdef", "from": "Acme", "allowedCountries": ["081"]}}}"#,
                 422, "courier.sms.allowedCountries"),
                (#"{"courier": {"sms": {"provider": "webhook", "url": "https://sms.example.com/send", "authToken": "0123456789abcdef", "from": "Acme", "allowedCountries": []}}}"#,
                 422, "courier.sms.allowedCountries"),
                (#"{"courier": {"smtp": {"startTLS": "maybe"}}}"#, 400, ""),
                (#"{"courier": {"smtp": {"host": "mail.example.com"}}}"#, 400, ""),
                (#"{"courier": {"sms": {"provider": "carrier-pigeon"}}}"#, 400, ""),
            ] {
                let refused = try await admin.call(.PATCH, "/admin/v1/tenants/acme", token: admin.tokens["root"], body: body)
                #expect(refused.status == status, "\(body): \(refused.json)")
                if status == 422 {
                    #expect(refused.json["code"] as? String == "invalid_tenant")
                    #expect((refused.json["detail"] as? String)?.contains(field) == true, "\(body): \(refused.json)")
                }
            }
            #expect(try await admin.stores.tenants.tenant(id: "acme") == before)
        }
    }
}

/// The courier outbox as operators read it (issue 63 §4): the gateway's own worker dead-letters
/// codes for a tenant that has no relay, and the admin API lists them masked, filtered, paged.
@Suite("Courier messages over the admin API")
struct AdminCourierMessagesTests {
    @Test(arguments: DatabaseBackend.available)
    func deadLettersAreListedMaskedAndPaged(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            let now = Date()
            for (index, (channel, to)) in [(CourierMessage.Channel.email, "ken@acme.example"), (.sms, "+819012345678"),
                                            (.email, "yui@acme.example")].enumerated() {
                try await admin.stores.courier.enqueue(
                    CourierMessage(
                        tenantID: "acme", id: "cm-\(index)", channel: channel, purpose: "verify-email", to: to,
                        subject: "Your code", text: "Your code is 918273", createdAt: now.addingTimeInterval(Double(index)),
                        expiresAt: now.addingTimeInterval(600)))
            }
            // acme has no relay and no SMS provider: the gateway's courier ends all three at once.
            #expect(
                await eventually(within: .seconds(10)) {
                    (try? await admin.stores.courier.messages(tenantID: "acme", state: .failed, before: nil, limit: 10).count) == 3
                })
            let listed = try await admin.call(
                .GET, "/admin/v1/tenants/acme/courier/messages?state=failed&limit=2", token: admin.tokens["acme-admin"])
            #expect(listed.status == 200, "\(listed.json)")
            let items = try #require(listed.json["items"] as? [[String: Any]])
            #expect(items.map { $0["id"] as? String } == ["cm-2", "cm-1"])
            #expect(items.map { $0["recipient"] as? String } == ["y…@acme.example", "+81…5678"])
            #expect(items.allSatisfy { ($0["lastError"] as? String)?.hasPrefix("not_configured") == true })
            let text = AdminTenantAPITests.text(listed)
            #expect(!text.contains("918273") && !text.contains("yui@") && !text.contains("9012345678"))
            let next = try #require(listed.json["next"] as? String)
            let rest = try await admin.call(
                .GET, "/admin/v1/tenants/acme/courier/messages?state=failed&cursor=\(next)", token: admin.tokens["acme-admin"])
            #expect((rest.json["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["cm-0"])
            #expect(rest.json["next"] == nil)
            let pending = try await admin.call(
                .GET, "/admin/v1/tenants/acme/courier/messages?state=pending", token: admin.tokens["acme-admin"])
            #expect((pending.json["items"] as? [Any])?.isEmpty == true)

            // Refused: another tenant's operator, a bad state, a bad cursor.
            let other = try await admin.call(
                .GET, "/admin/v1/tenants/beta/courier/messages", token: admin.tokens["acme-admin"])
            #expect(other.status == 404, "an operator of acme does not learn what beta holds")
            let badState = try await admin.call(
                .GET, "/admin/v1/tenants/acme/courier/messages?state=lost", token: admin.tokens["acme-admin"])
            #expect(badState.status == 400)
            let badCursor = try await admin.call(
                .GET, "/admin/v1/tenants/acme/courier/messages?cursor=x.y", token: admin.tokens["acme-admin"])
            #expect(badCursor.status == 400)
        }
    }
}
