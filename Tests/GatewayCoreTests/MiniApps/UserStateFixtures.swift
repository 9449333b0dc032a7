import Foundation
import RedisClient
@testable import GatewayCore

/// A temp database with tenants `acme` and `beta`, plus a cache (Redis when REDIS_URL is set).
struct UserStateFixture {
    let folder: TemporaryFolder
    let database: SQLiteTenantStore

    init(storageMax: Int64 = Tenant.defaultStorageMaxSizeInBytes) async throws {
        folder = try TemporaryFolder()
        database = try Fixtures.store(folder)
        try await database.create(Tenant(id: "acme", displayName: "Acme", storageMaxSizeInBytes: storageMax), actor: "test")
        try await database.create(Tenant(id: "beta", displayName: "Beta", storageMaxSizeInBytes: storageMax), actor: "test")
    }

    func tenant(_ id: String = "acme") async throws -> Tenant {
        try await database.tenant(id: id)!
    }

    /// Another store instance on the same file (like another process).
    func reopen() throws -> SQLiteTenantStore {
        try Fixtures.store(folder)
    }

    func remove() {
        folder.remove()
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
