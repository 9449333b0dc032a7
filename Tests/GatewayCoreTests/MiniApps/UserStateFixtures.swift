import Foundation
import RedisClient
@testable import GatewayCore

/// A fresh database on `backend` with tenants `acme` and `beta`.
struct UserStateFixture {
    let database: TestDatabase
    /// The stores of the database.
    var stores: DurableStores { database.stores }

    init(_ backend: StoreBackend = .sqlite, storageMax: Int64 = Tenant.defaultStorageMaxSizeInBytes) async throws {
        database = try await TestDatabase.make(backend)
        try await database.stores.tenants.create(
            Tenant(id: "acme", displayName: "Acme", storageMaxSizeInBytes: storageMax), actor: "test")
        try await database.stores.tenants.create(
            Tenant(id: "beta", displayName: "Beta", storageMaxSizeInBytes: storageMax), actor: "test")
    }

    func tenant(_ id: String = "acme") async throws -> Tenant {
        try await stores.tenants.tenant(id: id)!
    }

    /// Another instance on the same data (like another process).
    func reopen() async throws -> DurableStores {
        try await database.another()
    }

    func remove() {
        database.remove()
    }

    static let manifest = MiniAppPermissionManifest(
        miniAppID: "app-1", versionID: "v1",
        required: [.init(name: CustomPermission.userName.rawValue, reason: "To greet you")],
        optional: [
            .init(name: CustomPermission.accessToken.rawValue, reason: "To call our API"),
            .init(name: CustomPermission.location.rawValue, reason: nil),
        ],
        accessTokenPermissions: [
            .init(audience: "rae", scopes: ["idinfo_read_openid", "memberinfo_read_point"]),
            .init(audience: "api-c", scopes: ["your_service_scope_here"]),
        ]
    )
}

/// The cache under test: Redis at REDIS_URL when set, else in-process.
enum TestCaches {
    static func make() throws -> (cache: any Cache, client: RedisClient?) {
        if let url = ProcessInfo.processInfo.environment["REDIS_URL"], !url.isEmpty {
            let client = RedisClient(configuration: try RedisConfiguration(url: url))
            return (RedisCache(client: client, namespace: "test:userstate:\(UUID().uuidString):"), client)
        }
        return (MemoryCache(), nil)
    }
}
