// Measures the authorization server's token paths in-process (no HTTP): authorization-code
// exchanges/s and refreshes/s (SQLite WAL file + Redis at REDIS_URL, else the in-process
// cache), the per-call cost of access-token verification with and without the memo, and
// passkey sign-in ceremonies/s beside password sign-ins/s.
// Usage: auth-bench [operations=2000] [concurrency=16]
import Crypto
import Foundation
import GatewayCore
import GatewaySQLite
import RedisClient
import Synchronization

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let operations = arguments.count > 0 ? arguments[0] : 2000
let concurrency = arguments.count > 1 ? arguments[1] : 16

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("auth-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let tenants = try SQLiteTenantStore(
    path: folder.appendingPathComponent("bench.sqlite").path, sealer: SecretSealer(masterKey: .generate()))
try await tenants.create(Tenant(id: "bench", displayName: "Bench"), actor: "bench")
let store = SQLiteAuthStore(tenants: tenants)
let cache: any Cache
var redis: RedisClient?
if let url = ProcessInfo.processInfo.environment["REDIS_URL"] {
    let client = RedisClient(configuration: try RedisConfiguration(url: url))
    try await client.ping()
    redis = client
    cache = RedisCache(client: client)
} else {
    cache = MemoryCache()
}
let client = OAuthClient(tenantID: "bench", clientID: "bench-app", redirectURIs: ["https://app.example/cb"])
try await store.addClient(client, secretHash: nil)
let user = LocalUser(tenantID: "bench", username: "u", passwordHash: try PasswordHasher(logN: 10).hash("password-123"))
try await store.addUser(user)
let server = AuthorizationServer(store: store, cache: cache)
let issuer = "https://gw.example/t/bench"
let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
let grant = AuthorizationGrant(
    tenantID: "bench", clientID: "bench-app", redirectURI: "https://app.example/cb",
    codeChallenge: PKCE.challenge(for: verifier),
    subject: user.subject, scope: "openid profile", nonce: "n", authTime: 0)

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

func measure(_ name: String, count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Double
{
    let perTask = max(1, count / concurrency)
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for t in 0..<concurrency {
            group.addTask { for i in 0..<perTask { try await body(t * perTask + i) } }
        }
        try await group.waitForAll()
    }
    let rate = Double(perTask * concurrency) / seconds(ContinuousClock.now - start)
    print("\(name): \(Int(rate)) /s (\(perTask * concurrency) ops, concurrency \(concurrency), cache \(cache.kind))")
    return rate
}

// Warm the key ring.
_ = try await server.keys.signingKey(tenantID: "bench")

// 1 + 2, once per ID-token algorithm (RS256 is the default, ES256 on request), side by side.
func tokenRates(_ client: OAuthClient) async throws -> (exchanges: Double, refreshes: Double) {
    var clientGrant = grant
    clientGrant.clientID = client.clientID
    let alg = client.idTokenAlgorithm.rawValue
    // 1. Authorization-code exchanges (issue code + redeem + PKCE + refresh family + 2 JWTs).
    let codes = try await withThrowingTaskGroup(of: String.self) { group in
        for _ in 0..<operations { group.addTask { [clientGrant] in try await server.codes.issue(clientGrant) } }
        var all: [String] = []
        for try await code in group { all.append(code) }
        return all
    }
    let refreshTokens = RefreshBox()
    let exchanges = try await measure("authorization_code exchanges, \(alg) ID tokens", count: operations) { i in
        let r = try await server.tokens.exchangeCode(
            issuer: issuer, client: client, code: codes[i], redirectURI: "https://app.example/cb", verifier: verifier,
            dpopJKT: nil)
        refreshTokens.set(i, r.refreshToken)
    }
    // 2. Refreshes (each task rotates its own chain).
    let refreshes = try await measure("refresh_token rotations, \(alg) ID tokens", count: operations) { i in
        let t = (i / max(1, operations / concurrency))
        let token = refreshTokens.get(t)
        let r = try await server.tokens.refresh(issuer: issuer, client: client, refreshToken: token, dpopJKT: nil)
        refreshTokens.set(t, r.refreshToken)
    }
    return (exchanges, refreshes)
}
let esClient = OAuthClient(
    tenantID: "bench", clientID: "bench-es", redirectURIs: ["https://app.example/cb"], idTokenSigningAlgorithm: .es256)
try await store.addClient(esClient, secretHash: nil)
let rs256 = try await tokenRates(client)
let es256 = try await tokenRates(esClient)
print(
    String(
        format: "RS256 vs ES256 ID tokens: exchanges %.0f%%, refreshes %.0f%%", rs256.exchanges / es256.exchanges * 100,
        rs256.refreshes / es256.refreshes * 100))

// 3. Verification cost, single task, with and without the memo.
let access = try await server.tokens.exchangeCode(
    issuer: issuer, client: client, code: try await server.codes.issue(grant), redirectURI: "https://app.example/cb",
    verifier: verifier, dpopJKT: nil
).accessToken
let revoked = RevokedTokens(cache: cache)
for (label, memo) in [("without memo", nil), ("with memo", VerifiedTokenMemo())] as [(String, VerifiedTokenMemo?)] {
    let verifierService = TokenVerifier(keys: server.keys, revoked: revoked, memo: memo)
    let n = 5000
    var start = ContinuousClock.now
    for _ in 0..<n { _ = try await verifierService.verifySignatureAndClaims(access, issuer: issuer, tenantID: "bench") }
    let signatureOnly = seconds(ContinuousClock.now - start) / Double(n) * 1e6
    start = ContinuousClock.now
    for _ in 0..<n { _ = try await verifierService.verify(access, issuer: issuer, tenantID: "bench") }
    let full = seconds(ContinuousClock.now - start) / Double(n) * 1e6
    print(
        "token verification \(label): \(String(format: "%.1f", signatureOnly)) µs (signature + claims), \(String(format: "%.1f", full)) µs (+ revocation lookup in \(cache.kind))"
    )
}

// 4. Passkey sign-in ceremonies beside password sign-ins (issue 64), side by side. A passkey
// one: a challenge begun in the cache, an ES256 assertion verified (client data, authenticator
// data, signature) and the counter moved by compare-and-set in SQLite; the signing, the
// phone's work, is timed too, so the figure is a floor. A password one: the throttle, the
// user read, scrypt at the gateway's production cost.
let ceremonies = PasskeyCeremonies(store: store, cache: cache, clock: .system)
let party = RelyingParty(id: "gw.example", origins: ["https://gw.example"])
let keys = (0..<concurrency).map { _ in P256.Signing.PrivateKey() }
for (t, key) in keys.enumerated() {
    let raw = Array(key.publicKey.rawRepresentation)
    let cose = CBOREncoder.encode(
        .map([
            .init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .negative(6)), .init(.negative(0), .unsigned(1)),
            .init(.negative(1), .bytes(Array(raw[0..<32]))), .init(.negative(2), .bytes(Array(raw[32..<64]))),
        ]))
    try await store.addPasskey(
        StoredPasskey(
            tenantID: "bench", subject: "pk-\(t)", credentialID: [UInt8(t), 0xB0], publicKey: cose, algorithm: -7,
            signCount: 0, backupEligible: true, backedUp: true, aaguid: [UInt8](repeating: 0, count: 16),
            transports: ["internal"], name: "Bench", createdAt: Date()),
        trail: nil)
}
let counters = RefreshBox()
let ceremonyCount = min(operations, 2000)
let passkeyRate = try await measure("passkey sign-in ceremonies (ES256, verified)", count: ceremonyCount) { i in
    let t = i / max(1, ceremonyCount / concurrency)
    let (token, options) = try await ceremonies.beginAuthentication(party: party, tenantID: "bench", subject: nil)
    let counter = UInt32(Int(counters.getOrNil(t) ?? "0")! + 1)
    counters.set(t, String(counter))
    let clientData = Array(
        #"{"type":"webauthn.get","challenge":"\#(options.challenge)","origin":"https://gw.example"}"#.utf8)
    let authenticatorData =
        Array(SHA256.hash(data: Data("gw.example".utf8))) + [0x1D] + withUnsafeBytes(of: counter.bigEndian, Array.init)
    let signature = try keys[t].signature(for: authenticatorData + Array(SHA256.hash(data: clientData)))
    let id = Base64URL.encode([UInt8(t), 0xB0])
    let json = #"{"id":"\#(id)","rawId":"\#(id)","type":"public-key","response":{"clientDataJSON":"\#(Base64URL.encode(clientData))","authenticatorData":"\#(Base64URL.encode(authenticatorData))","signature":"\#(Base64URL.encode(Array(signature.derRepresentation)))","userHandle":"\#(Base64URL.encode(Array("pk-\(t)".utf8)))"}}"#
    let answer = try JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(json.utf8))
    _ = try await ceremonies.finishAuthentication(token: token, tenantID: "bench", answer: answer, party: party)
}
// One user per task: the sign-in throttle holds back a burst at one username, as it should.
let production = PasswordHasher()
let productionHash = try production.hash("password-123")
try await store.addUsers(
    (0..<concurrency).map { LocalUser(tenantID: "bench", username: "pw-\($0)", passwordHash: productionHash) })
let passwordServer = AuthorizationServer(store: store, cache: cache, hasher: production)
let passwordCount = min(operations, 4 * concurrency)
let passwordRate = try await measure("password sign-ins (scrypt logN \(production.logN))", count: passwordCount) { i in
    let outcome = try await passwordServer.authenticate(
        tenantID: "bench", username: "pw-\(i / max(1, passwordCount / concurrency))", password: "password-123",
        address: nil)
    guard case .signedIn = outcome else { fatalError("a password sign-in did not sign in: \(outcome)") }
}
print(String(format: "passkey vs password sign-ins: %.1fx", passkeyRate / passwordRate))
await redis?.shutdown()

/// Per-task refresh token chains.
final class RefreshBox: Sendable {
    private let tokens = Mutex<[Int: String]>([:])
    func set(_ i: Int, _ token: String) { tokens.withLock { $0[i] = token } }
    func get(_ i: Int) -> String { tokens.withLock { $0[i]! } }
    func getOrNil(_ i: Int) -> String? { tokens.withLock { $0[i] } }
}
