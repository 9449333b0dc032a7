import AsyncHTTPClient
import Foundation
import GatewayAPI
import GatewayCore
import Testing

@Suite("Secure storage over HTTP: all-or-nothing writes under the tenant cap, 404 for missing keys, isolation")
struct StorageEndpointTests {
    private static func items(_ items: [String: String]) -> Operations.PutMiniAppStorage.Input.Body {
        .json(.init(items: .init(additionalProperties: items)))
    }

    @Test("put, get, size, delete keys, delete all; a missing key is 404", arguments: DatabaseBackend.available)
    func roundTrip(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, _ in
            let id = uniqueTenantID("store")
            try await harness.createTenant(Tenant(id: id, displayName: "Storage"))
            let path = Operations.PutMiniAppStorage.Input.Path(tenant: id, id: "hello")
            let size = try await client.putMiniAppStorage(path: path, body: Self.items(["a": "one", "b": "two"])).ok
                .body.json
            #expect(size.used == 8)
            #expect(size.max == Tenant.defaultStorageMaxSizeInBytes)
            let value = try await client.getMiniAppStorageItem(path: .init(tenant: id, id: "hello", key: "a")).ok.body
                .json
            #expect(value.value == "one")
            let missing = try await client.getMiniAppStorageItem(path: .init(tenant: id, id: "hello", key: "nope"))
                .notFound.body.applicationProblemJson
            #expect(missing.code == "not_found")
            #expect(try await client.getMiniAppStorageSize(path: .init(tenant: id, id: "hello")).ok.body.json.used == 8)

            let afterDelete = try await client.deleteMiniAppStorageItems(
                path: .init(tenant: id, id: "hello"), query: .init(key: ["a", "zzz"])
            ).ok.body.json
            #expect(afterDelete.used == 4)
            _ = try await client.getMiniAppStorageItem(path: .init(tenant: id, id: "hello", key: "a")).notFound
            #expect(
                try await client.deleteAllMiniAppStorage(path: .init(tenant: id, id: "hello")).ok.body.json.deleted == 1
            )
            #expect(try await client.getMiniAppStorageSize(path: .init(tenant: id, id: "hello")).ok.body.json.used == 0)
            // A key outside the contract's pattern.
            _ = try await client.getMiniAppStorageItem(path: .init(tenant: id, id: "hello", key: "bad key")).badRequest
        }
    }

    @Test(
        "a query item without '=' is a 400 problem; storage/all allows DELETE only (the literal route wins over storage/{key})"
    )
    func routingEdges() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let id = uniqueTenantID("store")
            try await harness.createTenant(Tenant(id: id, displayName: "Storage"))
            // Sign the harness user in, then reuse the token on raw requests.
            _ = try await client.getMiniAppStorageSize(path: .init(tenant: id, id: "hello")).ok
            let token = try await harness.users.accessToken(tenant: id)
            for (method, path, status, allow) in [
                ("DELETE", "/t/\(id)/v1/me/miniapps/hello/storage?key", 400, nil as String?),
                ("OPTIONS", "/t/\(id)/v1/me/miniapps/hello/storage/all", 405, "DELETE"),
            ] {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                request.method = method == "DELETE" ? .DELETE : .OPTIONS
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(10))
                #expect(Int(response.status.code) == status)
                #expect(response.headers.first(name: "Content-Type") == "application/problem+json")
                if let allow { #expect(response.headers.first(name: "Allow") == allow) }
            }
        }
    }

    @Test(
        "a write passing the cap is 413 storage_full and writes nothing; 20 concurrent writers never exceed it",
        arguments: DatabaseBackend.available)
    func cap(backend: DatabaseBackend) async throws {
        try await GatewayHarness.withGateway(backend: backend) { harness, client, _ in
            let id = uniqueTenantID("store")
            try await harness.createTenant(Tenant(id: id, displayName: "Storage", storageMaxSizeInBytes: 100))
            let path = Operations.PutMiniAppStorage.Input.Path(tenant: id, id: "hello")
            _ = try await client.putMiniAppStorage(
                path: path, body: Self.items(["k": String(repeating: "x", count: 59)])
            ).ok
            let refused = try await client.putMiniAppStorage(
                path: path, body: Self.items(["small": "1", "big": String(repeating: "y", count: 40)]))
            #expect(try refused.contentTooLarge.body.applicationProblemJson.code == "storage_full")
            _ = try await client.getMiniAppStorageItem(path: .init(tenant: id, id: "hello", key: "small")).notFound
            #expect(
                try await client.getMiniAppStorageSize(path: .init(tenant: id, id: "hello")).ok.body.json.used == 60)

            _ = try await client.deleteAllMiniAppStorage(path: .init(tenant: id, id: "hello")).ok
            // Each write is 10 bytes; the cap admits exactly 10 of 20.
            let statuses = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let key = String(format: "key-%02d", index)
                        if case .ok = try await client.putMiniAppStorage(path: path, body: Self.items([key: "abcd"])) {
                            return true
                        }
                        return false
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 }.count == 10)
            #expect(
                try await client.getMiniAppStorageSize(path: .init(tenant: id, id: "hello")).ok.body.json.used == 100)
        }
    }

    @Test("user B never reads user A's storage; a tenant-A token on a tenant-B path is 401")
    func isolation() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let a = uniqueTenantID("store-a")
            let b = uniqueTenantID("store-b")
            try await harness.createTenant(Tenant(id: a, displayName: "A"))
            try await harness.createTenant(Tenant(id: b, displayName: "B"))
            _ = try await client.putMiniAppStorage(
                path: .init(tenant: a, id: "hello"), body: Self.items(["secret": "alice"])
            ).ok

            let bob = try await harness.secondUser(tenant: a, client: client, port: port)
            _ = try await bob.client.getMiniAppStorageItem(path: .init(tenant: a, id: "hello", key: "secret")).notFound
            #expect(
                try await bob.client.getMiniAppStorageSize(path: .init(tenant: a, id: "hello")).ok.body.json.used == 0)
            _ = try await bob.client.deleteAllMiniAppStorage(path: .init(tenant: a, id: "hello")).ok
            #expect(
                try await client.getMiniAppStorageItem(path: .init(tenant: a, id: "hello", key: "secret")).ok.body.json
                    .value == "alice")

            _ = try await client.getMiniAppStorageItem(path: .init(tenant: b, id: "hello", key: "secret")).notFound
            _ = try await bob.client.getMiniAppStorageItem(path: .init(tenant: b, id: "hello", key: "secret"))
                .unauthorized
        }
    }
}
