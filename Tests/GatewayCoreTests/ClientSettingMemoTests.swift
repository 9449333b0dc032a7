import Foundation
import Synchronization
@testable import GatewayCore
@testable import GatewaySQLite
import Testing

/// The token endpoint asks for its client on every request, the API on every DPoP-bound
/// request whether the client wants server nonces: the record comes from the store at most
/// once per ``AuthorizationServer/clientSettingLifetime``.
@Suite("Client settings on the API's hot path")
struct ClientSettingMemoTests {
    /// The real SQLite client store, counting single-client reads.
    final class CountingClients: ClientStore {
        let store: SQLiteAuthStore
        let reads = Atomic<Int>(0)

        init(_ store: SQLiteAuthStore) { self.store = store }

        func client(tenantID: String, clientID: String) async throws -> OAuthClient? {
            reads.add(1, ordering: .relaxed)
            return try await store.client(tenantID: tenantID, clientID: clientID)
        }
        func clients(tenantID: String) async throws -> [OAuthClient] { try await store.clients(tenantID: tenantID) }
        func addClients(_ clients: [NewClient], trail: (@Sendable (OAuthClient) -> AuditDraft)?) async throws {
            try await store.addClients(clients, trail: trail)
        }
        func writeClient(
            tenantID: String, clientID: String, trail: (@Sendable (OAuthClient, OAuthClient?) -> AuditDraft)?,
            _ change: @Sendable (OAuthClient) throws -> OAuthClient?
        ) async throws -> OAuthClient? {
            try await store.writeClient(tenantID: tenantID, clientID: clientID, trail: trail, change)
        }
        func clientSecretHash(tenantID: String, clientID: String) async throws -> String? {
            try await store.clientSecretHash(tenantID: tenantID, clientID: clientID)
        }
    }

    @Test("the DPoP nonce setting is read once per lifetime, and a change is seen after it")
    func dpopNonceSettingIsMemoised() async throws {
        let folder = try TemporaryFolder()
        let tenants = try Fixtures.store(folder)
        let store = SQLiteAuthStore(tenants: tenants)
        let clients = CountingClients(store)
        let time = ManualClock(frozen: true)  // a loaded machine's second must not end the memo
        let server = AuthorizationServer(
            clients: clients, users: store, refreshTokens: store, keys: KeyRing(store: store), cache: MemoryCache(),
            clock: time.wall)
        var client = OAuthClient(
            tenantID: "acme", clientID: "app", redirectURIs: ["https://app.example/cb"], dpopBound: true)
        client.dpopNonceRequired = true
        try await store.addClient(client, secretHash: nil)

        for _ in 0..<100 { #expect(try await server.requiresDPoPNonce(tenantID: "acme", clientID: "app")) }
        #expect(clients.reads.load(ordering: .relaxed) == 1)
        #expect(try await server.requiresDPoPNonce(tenantID: "acme", clientID: "unknown") == false)
        #expect(try await server.requiresDPoPNonce(tenantID: "other", clientID: "app") == false)
        #expect(clients.reads.load(ordering: .relaxed) == 3)

        client.dpopNonceRequired = false
        try await store.updateClient(client)
        #expect(try await server.requiresDPoPNonce(tenantID: "acme", clientID: "app"), "still the memoised answer")
        time.advance(AuthorizationServer.clientSettingLifetime - .milliseconds(500))
        #expect(
            try await server.requiresDPoPNonce(tenantID: "acme", clientID: "app"),
            "re-read before the lifetime was over")
        time.advance(.milliseconds(500))
        #expect(
            try await server.requiresDPoPNonce(tenantID: "acme", clientID: "app") == false,
            "the change was not seen after the lifetime")
    }

    /// Issue 32: the client's JSON document is decoded once per text, and read every time.
    @Test("a client is read on every request but its document decoded once; a change is seen at once")
    func clientDocumentsDecodedOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = SQLiteAuthStore(tenants: try Fixtures.store(folder))
        var client = OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: ["https://app.example/cb"])
        try await store.addClient(client, secretHash: nil)
        client.revision = 1
        #expect(try await store.client(tenantID: "acme", clientID: "app") == client)
        client.redirectURIs.append("https://app.example/cb2")
        try await store.updateClient(client)
        client.revision = 2
        #expect(try await store.client(tenantID: "acme", clientID: "app") == client, "a change is seen at once")
        let documents = ClientDocuments(capacity: 2)
        let text = String(decoding: try JSONEncoder().encode(client), as: UTF8.self)
        #expect(try documents.client(text) == client)
        #expect(try documents.client(text) == client)
        #expect(throws: (any Error).self) { try documents.client("{") }
    }

    /// Issue 32: a refresh read its client's row every time (a database round trip of three).
    @Test("the token endpoint reads a client once per lifetime; a removal is seen after it")
    func clientRecordIsMemoised() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = SQLiteAuthStore(tenants: try Fixtures.store(folder))
        let clients = CountingClients(store)
        let time = ManualClock(frozen: true)
        let server = AuthorizationServer(
            clients: clients, users: store, refreshTokens: store, keys: KeyRing(store: store), cache: MemoryCache(),
            clock: time.wall)
        try await store.addClient(
            OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: ["https://app.example/cb"]), secretHash: nil)
        let secret = "a-secret-of-the-backend"
        try await store.addClient(
            OAuthClient(
                tenantID: "acme", clientID: "backend", confidential: true, redirectURIs: ["https://app.example/cb"]),
            secretHash: ClientSecret.hash(secret))

        for _ in 0..<50 {
            _ = try await server.authenticateClient(tenantID: "acme", clientID: "app", secret: nil)
            _ = try await server.authenticateClient(tenantID: "acme", clientID: "backend", secret: secret)
            await #expect(throws: OAuthError.self) {
                try await server.authenticateClient(tenantID: "acme", clientID: "backend", secret: "wrong")
            }
        }
        #expect(clients.reads.load(ordering: .relaxed) == 2, "one read per client, not per request")
        #expect(try await server.requiresDPoPNonce(tenantID: "acme", clientID: "app") == false)
        #expect(clients.reads.load(ordering: .relaxed) == 2, "the API's question is answered by the same record")

        try await store.removeClient(tenantID: "acme", clientID: "app")
        _ = try await server.authenticateClient(tenantID: "acme", clientID: "app", secret: nil)
        time.advance(AuthorizationServer.clientSettingLifetime)
        await #expect(throws: OAuthError.self, "the removal was not seen after the lifetime") {
            try await server.authenticateClient(tenantID: "acme", clientID: "app", secret: nil)
        }
    }
}
