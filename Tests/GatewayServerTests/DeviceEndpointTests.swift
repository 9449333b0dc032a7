import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import NIOCore
import Testing

/// Issue 30, devices: a signed-in user registers, refreshes, lists and removes push
/// devices; the token is never answered; bad input is a typed problem and stores nothing.
@Suite("Push devices over HTTP: register, refresh, list without tokens, remove, typed refusals")
struct DeviceEndpointTests {
    static let fcmToken = "fcm:APA91bH-device-token_" + String(repeating: "q", count: 120)

    @Test("register (201), again (200, same id), list, delete (204), delete again (404)", arguments: DatabaseBackend.available)
    func lifecycle(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, port in
            let id = uniqueTenantID("devices")
            try await harness.createTenant(Tenant(id: id, displayName: "Devices"))
            let body = Components.Schemas.DeviceRegistration(
                provider: .fcm, token: Self.fcmToken, platform: .android, locale: "ja", appVersion: "2.4.0")
            let created = try await client.registerDevice(path: .init(tenant: id), body: .json(body)).created.body.json
            #expect(created.provider == .fcm && created.locale == "ja" && created.apnsEnvironment == nil)
            var newer = body
            newer.appVersion = "2.5.0"
            let refreshed = try await client.registerDevice(path: .init(tenant: id), body: .json(newer)).ok.body.json
            #expect(refreshed.id == created.id && refreshed.appVersion == "2.5.0")
            let apns = try await client.registerDevice(
                path: .init(tenant: id),
                body: .json(.init(provider: .apns, token: String(repeating: "0f", count: 32), platform: .ios))
            ).created.body.json
            #expect(apns.apnsEnvironment == .production)

            let listed = try await client.listDevices(path: .init(tenant: id)).ok.body.json.items
            #expect(Set(listed.map(\.id)) == [created.id, apns.id])
            // The raw answer holds no token.
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/t/\(id)/v1/me/devices")
            request.headers.add(name: "Authorization", value: "Bearer \(try await harness.users.accessToken(tenant: id))")
            let raw = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
            let text = String(buffer: try await raw.body.collect(upTo: 1 << 20))
            #expect(raw.status.code == 200 && !text.contains("APA91bH") && !text.contains("0f0f0f"))

            _ = try await client.deleteDevice(path: .init(tenant: id, deviceId: created.id)).noContent
            let gone = try await client.deleteDevice(path: .init(tenant: id, deviceId: created.id)).notFound.body
                .applicationProblemJson
            #expect(gone.code == "device_not_found")
            #expect(try await client.listDevices(path: .init(tenant: id)).ok.body.json.items.map(\.id) == [apns.id])
        }
    }

    @Test("bad tokens, locales and environments are 422 invalid_device, an unknown provider 400; nothing is stored")
    func refusals() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let id = uniqueTenantID("devices")
            try await harness.createTenant(Tenant(id: id, displayName: "Devices"))
            for body in [
                Components.Schemas.DeviceRegistration(provider: .apns, token: "not-hex", platform: .ios),
                .init(provider: .fcm, token: "has space", platform: .android),
                .init(provider: .fcm, token: "t", platform: .android, apnsEnvironment: "sandbox"),
                .init(provider: .fcm, token: "t", platform: .android, locale: "x"),
            ] {
                let problem = try await client.registerDevice(path: .init(tenant: id), body: .json(body))
                    .unprocessableContent.body.applicationProblemJson
                #expect(problem.code == "invalid_device")
            }
            let token = try await harness.users.accessToken(tenant: id)
            for json in [
                #"{"provider": "webpush", "token": "t", "platform": "android"}"#,
                #"{"provider": "fcm", "token": "", "platform": "android"}"#,
                #"{"provider": "apns", "token": "\#(String(repeating: "ab", count: 32))", "platform": "ios", "apnsEnvironment": "staging"}"#,
                #"{"provider": "fcm", "token": "\#(String(repeating: "x", count: 10_240))", "platform": "android"}"#,
            ] {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/t/\(id)/v1/me/devices")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                #expect([400, 422].contains(response.status.code), "\(json.prefix(60)): \(response.status)")
            }
            #expect(try await client.listDevices(path: .init(tenant: id)).ok.body.json.items.isEmpty)
            _ = try await client.deleteDevice(path: .init(tenant: id, deviceId: "dev_unknown")).notFound
        }
    }
}
