import Foundation
import Testing
@testable import GatewayCore

/// Push devices on both engines (issue 30): a token registered once per tenant, moved to
/// whoever registers it last, bounded per user, sealed at rest.
@Suite("Device store contract")
struct DeviceStoreContractTests {
    static let apnsToken = String(repeating: "ab12", count: 16)

    static func withService(
        _ backend: StoreBackend, maxPerUser: Int = 20,
        _ body: (DeviceService, TestDatabase, ManualClock) async throws -> Void
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let clock = ManualClock()
        let service = DeviceService(store: database.stores.devices, maxPerUser: maxPerUser, clock: clock.wall)
        try await body(service, database, clock)
    }

    static func fcm(_ token: String, locale: String? = nil) -> DeviceService.Request {
        .init(provider: .fcm, token: token, platform: .android, locale: locale, appVersion: "2.4.0")
    }

    @Test(arguments: StoreBackend.available) func registerRefreshAndList(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, database, clock in
            let first = try await service.register(Self.fcm("fcm-token-1", locale: "ja"), tenantID: "acme", userID: "alice")
            #expect(first.created && !first.movedFromOtherUser && first.dropped == 0)
            clock.advance(.seconds(10))
            let apns = try await service.register(
                .init(provider: .apns, token: Self.apnsToken, platform: .ios), tenantID: "acme", userID: "alice")
            #expect(apns.device.apnsEnvironment == .production, "APNs devices default to production")
            clock.advance(.seconds(10))
            // The same token again: the same registration, refreshed.
            let again = try await service.register(Self.fcm("fcm-token-1", locale: "pt-BR"), tenantID: "acme", userID: "alice")
            #expect(!again.created && again.device.id == first.device.id)
            #expect(again.device.createdAt == first.device.createdAt && again.device.updatedAt > first.device.updatedAt)

            let other = try await database.another()
            let listed = try await other.devices.devices(tenantID: "acme", userID: "alice")
            #expect(listed.map(\.id) == [first.device.id, apns.device.id], "newest registration first")
            #expect(listed.first?.token == "fcm-token-1" && listed.first?.locale == "pt-BR")
            #expect(listed.last?.token == Self.apnsToken && listed.last?.provider == .apns)
            // Sealed at rest: the tokens are nowhere in the database's bytes.
            let bytes = try await database.bytesAtRest()
            #expect(bytes.range(of: Data("fcm-token-1".utf8)) == nil)
            #expect(bytes.range(of: Data(Self.apnsToken.utf8)) == nil)
        }
    }

    @Test(arguments: StoreBackend.available) func aTokenMovesToItsLastUser(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, _, _ in
            let alices = try await service.register(Self.fcm("shared-phone"), tenantID: "acme", userID: "alice")
            let bobs = try await service.register(Self.fcm("shared-phone"), tenantID: "acme", userID: "bob")
            #expect(bobs.created && bobs.movedFromOtherUser && bobs.device.id != alices.device.id)
            #expect(try await service.devices(tenantID: "acme", userID: "alice").isEmpty)
            #expect(try await service.devices(tenantID: "acme", userID: "bob").map(\.id) == [bobs.device.id])
            // Alice cannot remove Bob's device by the id she once had, nor by his.
            await #expect(throws: DeviceError.notFound(deviceID: alices.device.id)) {
                try await service.remove(deviceID: alices.device.id, tenantID: "acme", userID: "alice")
            }
            await #expect(throws: DeviceError.notFound(deviceID: bobs.device.id)) {
                try await service.remove(deviceID: bobs.device.id, tenantID: "acme", userID: "alice")
            }
            try await service.remove(deviceID: bobs.device.id, tenantID: "acme", userID: "bob")
            #expect(try await service.devices(tenantID: "acme", userID: "bob").isEmpty)
        }
    }

    @Test(arguments: StoreBackend.available) func theOldestGoBeyondTheBound(backend: StoreBackend) async throws {
        try await Self.withService(backend, maxPerUser: 3) { service, _, clock in
            var ids: [String] = []
            for index in 1...5 {
                let registered = try await service.register(Self.fcm("phone-\(index)"), tenantID: "acme", userID: "alice")
                #expect(registered.dropped == (index > 3 ? 1 : 0))
                ids.append(registered.device.id)
                clock.advance(.seconds(1))
            }
            #expect(try await service.devices(tenantID: "acme", userID: "alice").map(\.id) == ids.suffix(3).reversed())
            #expect(try await service.removeAll(tenantID: "acme", userID: "alice") == 3)
            #expect(try await service.removeAll(tenantID: "acme", userID: "alice") == 0)
        }
    }

    @Test(arguments: StoreBackend.available) func concurrentFirstRegistrationsOfOneToken(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, _, _ in
            try await withThrowingTaskGroup(of: DeviceRegistration.self) { group in
                for user in ["u1", "u2", "u3", "u4"] {
                    group.addTask { try await service.register(Self.fcm("raced"), tenantID: "acme", userID: user) }
                }
                for try await _ in group {}
            }
            var holders = 0
            for user in ["u1", "u2", "u3", "u4"] {
                holders += try await service.devices(tenantID: "acme", userID: user).count
            }
            #expect(holders == 1, "one token, one registration")
        }
    }

    @Test(arguments: [
        DeviceService.Request(provider: .fcm, token: "", platform: .android),
        DeviceService.Request(provider: .fcm, token: String(repeating: "x", count: 10_240), platform: .android),
        DeviceService.Request(provider: .fcm, token: "has space", platform: .android),
        DeviceService.Request(provider: .apns, token: "not-hex-" + String(repeating: "a", count: 60), platform: .ios),
        DeviceService.Request(provider: .apns, token: "abcd", platform: .ios),
        DeviceService.Request(provider: .fcm, token: "t", platform: .android, apnsEnvironment: .sandbox),
        DeviceService.Request(provider: .fcm, token: "t", platform: .android, locale: "english language"),
        DeviceService.Request(provider: .fcm, token: "t", platform: .android, appVersion: String(repeating: "9", count: 65)),
    ]) func refusedRegistrationsStoreNothing(request: DeviceService.Request) async throws {
        try await Self.withService(.sqlite) { service, _, _ in
            await #expect(throws: DeviceError.self) {
                try await service.register(request, tenantID: "acme", userID: "alice")
            }
            let stored = try await service.devices(tenantID: "acme", userID: "alice")
            #expect(stored.isEmpty)
        }
    }
}
