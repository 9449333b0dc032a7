// Code exchanges/s and refreshes/s through HTTP: real form bodies to `POST /oauth2/token`
// of a running gateway, one request per exchange, keep-alive, N concurrent connections.
// The authorization codes are minted with the gateway's own `AuthorizationCodes` into the
// shared Redis the gateway reads (signing a user in per code would measure scrypt instead).
//
// Usage: token-http-bench BASE_URL DATABASE_PATH_OR_URL TENANT CLIENT_ID REDIRECT_URI USERNAME [operations=2000] [connections=16]
// Environment: GATEWAY_MASTER_KEY (the gateway's), REDIS_URL (the gateway's Redis);
// BENCH_CHAINS_FILE: where to write each connection's last refresh token, one per line.
import AsyncHTTPClient
import Foundation
import GatewayCore
import GatewaySQLite
import GatewayPostgres
import Logging
import NIOCore
import RedisClient
import Synchronization

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 6, let masterKey = ProcessInfo.processInfo.environment["GATEWAY_MASTER_KEY"],
    let redisURL = ProcessInfo.processInfo.environment["REDIS_URL"]
else {
    print(
        "usage: token-http-bench BASE_URL DATABASE_PATH TENANT CLIENT_ID REDIRECT_URI USERNAME [operations] [connections] (GATEWAY_MASTER_KEY, REDIS_URL set)"
    )
    exit(2)
}
let (base, databasePath, tenant, clientID, redirectURI, username) = (
    arguments[0], arguments[1], arguments[2], arguments[3], arguments[4], arguments[5]
)
let operations = arguments.count > 6 ? Int(arguments[6]) ?? 2000 : 2000
let connections = arguments.count > 7 ? Int(arguments[7]) ?? 16 : 16

// DATABASE is the gateway's SQLite path or its PostgreSQL URL.
let sealer = SecretSealer(masterKey: try MasterKey(base64: masterKey))
let stores = databasePath.hasPrefix("postgres")
    ? try await PostgresStores.open(url: databasePath, sealer: sealer, logger: Logger(label: "bench"), migrate: false)
    : try SQLiteTenantStore.open(path: databasePath, sealer: sealer).durableStores()
let found = try await stores.auth.user(tenantID: tenant, username: username)
await stores.close()
guard let user = found else {
    print("no user \(username) in tenant \(tenant)")
    exit(2)
}
let redis = RedisClient(configuration: try RedisConfiguration(url: redisURL))
let codes = AuthorizationCodes(cache: RedisCache(client: redis))
let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
let grant = AuthorizationGrant(
    tenantID: tenant, clientID: clientID, redirectURI: redirectURI, codeChallenge: PKCE.challenge(for: verifier),
    subject: user.subject, scope: "openid profile", nonce: nil, authTime: Int64(Date().timeIntervalSince1970),
    sessionID: Base64URL.random(byteCount: 16))
var minted: [String] = []
for _ in 0..<operations { minted.append(try await codes.issue(grant, lifetime: .seconds(600))) }
await redis.shutdown()

let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(
    connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)))
let endpoint = TokenEndpoint(http: http, url: "\(base)/t/\(tenant)/oauth2/token")

/// The token endpoint of the gateway under test.
struct TokenEndpoint: Sendable {
    let http: HTTPClient
    let url: String

    static func formEncode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? value
    }

    /// POSTs one form; returns the answer's refresh token.
    func post(_ fields: [(String, String)]) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: fields.map { "\($0)=\(Self.formEncode($1))" }.joined(separator: "&")))
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok,
            let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            let refresh = json["refresh_token"] as? String
        else {
            throw BenchFailure(status: Int(response.status.code), body: String(buffer: body))
        }
        return refresh
    }
}

struct BenchFailure: Error { let status: Int; let body: String }

/// Runs `perTask` operations in each of `tasks` tasks; prints the rate.
func measure(
    _ name: String, tasks: Int, perTask: Int, _ body: @escaping @Sendable (Int, Int) async throws -> Void
) async throws {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask { for index in 0..<perTask { try await body(task, index) } }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(
        "HTTP \(name): \(Int(Double(perTask * tasks) / seconds)) /s (\(perTask * tasks) requests, \(tasks) connections, keep-alive)"
    )
}

let perTask = operations / connections
let chains = Mutex<[Int: String]>([:])
let allCodes = minted
try await measure("authorization_code exchanges", tasks: connections, perTask: perTask) { task, index in
    let refresh = try await endpoint.post([
        ("grant_type", "authorization_code"), ("code", allCodes[task * perTask + index]), ("redirect_uri", redirectURI),
        ("client_id", clientID), ("code_verifier", verifier),
    ])
    chains.withLock { $0[task] = refresh }
}
try await measure("refresh_token rotations", tasks: connections, perTask: perTask) { task, _ in
    let current = chains.withLock { $0[task]! }
    let next = try await endpoint.post([
        ("grant_type", "refresh_token"), ("refresh_token", current), ("client_id", clientID),
    ])
    chains.withLock { $0[task] = next }
}
// The chains' live refresh tokens, for a wrk run that goes on rotating them (scripts/refresh-chain.lua).
if let path = ProcessInfo.processInfo.environment["BENCH_CHAINS_FILE"] {
    let live = chains.withLock { Array($0.values) }
    try Data(live.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
}
let _: Void = try await http.shutdown()
