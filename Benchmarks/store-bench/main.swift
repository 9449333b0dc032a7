// The database behind the gateway, SQLite and PostgreSQL side by side in one run:
// loading N tenants (what a tenant reload reads), one tenant change + reload, and
// in-process refresh rotations/s with C concurrent tasks (the store's part of a refresh).
//
// Usage: store-bench POSTGRES_URL [tenants=10000] [rotations=4000] [concurrency=16]
// (without a URL: SQLite only). Each engine starts from an empty database.
import Foundation
import GatewayCore
import GatewaySQLite
import GatewayPostgres
import Logging

let arguments = Array(CommandLine.arguments.dropFirst())
let postgresURL = arguments.first.flatMap { $0.hasPrefix("postgres") ? $0 : nil }
let numbers = arguments.compactMap { Int($0) }
let tenantCount = numbers.count > 0 ? numbers[0] : 10_000
let rotations = numbers.count > 1 ? numbers[1] : 4_000
let concurrency = numbers.count > 2 ? numbers[2] : 16
let sealer = SecretSealer(masterKey: .generate())
let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let value = try await body()
    return (value, seconds(ContinuousClock.now - start))
}

func run(_ name: String, _ stores: DurableStores) async throws -> (reload: Double, rotations: Double) {
    let tenants = (0 ..< tenantCount).map { index in
        var tenant = Tenant(id: String(format: "t%06d", index), displayName: "Tenant \(index)")
        tenant.platform = PlatformSettings(
            baseURL: "https://ras.example.com", projectID: "p\(index)", subscriptionKey: SecretValue("key-\(index)"))
        return tenant
    }
    let (_, importTime) = try await timed { try await stores.tenants.importTenants(tenants, actor: "bench") }
    var reloads: [Double] = []
    for _ in 0 ..< 5 { reloads.append(try await timed { try await stores.tenants.allTenants() }.1) }
    let reload = reloads.sorted()[2]
    let (_, change) = try await timed {
        _ = try await stores.tenants.update(id: "t000042", actor: "bench") { $0.displayName = "changed" }
        _ = try await stores.tenants.changeToken()
    }
    // A replica's view: a directory holding every tenant, following changes (LISTEN/NOTIFY on
    // PostgreSQL, the 500 ms poll on SQLite). One more change: how long until it serves it,
    // and what one incremental refresh costs.
    let directory = TenantDirectory(
        store: stores.tenants, signal: stores.tenantChanges, pollInterval: .milliseconds(500), logger: quiet)
    try await directory.reload()
    let follower = Task { try await directory.run() }
    try await Task.sleep(for: .milliseconds(300))
    let (_, visible) = try await timed {
        _ = try await stores.tenants.update(id: "t000043", actor: "bench") { $0.displayName = "seen" }
        while directory.tenant("t000043")?.displayName != "seen" { try await Task.sleep(for: .milliseconds(1)) }
    }
    follower.cancel()
    _ = try await stores.tenants.update(id: "t000044", actor: "bench") { $0.displayName = "refreshed" }
    let (changed, refreshTime) = try await timed { try await directory.refresh() }

    let auth = stores.auth
    let now = Date()
    let idle = now.addingTimeInterval(3600)
    for task in 0..<concurrency {
        let family = RefreshFamily(
            familyID: "f\(task)", tenantID: "t000001", clientID: "app", subject: "s\(task)", scope: "openid",
            nonce: nil, dpopJKT: nil,
            createdAt: now, absoluteExpiry: now.addingTimeInterval(86_400))
        try await auth.createFamily(family, tokenHash: "h\(task)-0", idleExpiry: idle)
    }
    let perTask = rotations / concurrency
    let (_, rotationTime) = try await timed {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0 ..< concurrency {
                group.addTask {
                    for step in 0..<perTask {
                        let outcome = try await auth.rotate(
                            tokenHash: "h\(task)-\(step)", tenantID: "t000001", clientID: "app",
                            newHash: "h\(task)-\(step + 1)",
                            now: now, idleExpiry: idle,
                            accessToken: IssuedAccessToken(jti: "j\(task)-\(step)", expiresAt: idle))
                        guard case .rotated = outcome else { fatalError("rotation \(task)/\(step): \(outcome)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
    let rate = Double(perTask * concurrency) / rotationTime
    print(
        String(
            format:
                "%-10@ import %d tenants %6.2f s | load all (reload) %7.1f ms | change + token %6.1f ms | rotations+record %6.0f /s (%d tasks)",
            name as NSString, tenantCount, importTime, reload * 1000, change * 1000, rate, concurrency))
    print(
        String(
            format:
                "%-10@ a change is served by a directory of %d tenants after %.1f ms; one incremental refresh (%d changed) %.2f ms",
            name as NSString, tenantCount, visible * 1000, changed, refreshTime * 1000))
    return (reload, rate)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }
let sqlite = try SQLiteTenantStore(path: folder.appendingPathComponent("bench.sqlite").path, sealer: sealer)
    .durableStores()
let lite = try await run("sqlite", sqlite)
if let postgresURL {
    let schema = "bench_\(UInt32.random(in: 0 ... .max))"
    let admin = try PostgresDatabase(url: postgresURL, sealer: sealer, logger: quiet)
    try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
    let postgres = try await PostgresStores.open(url: postgresURL, sealer: sealer, logger: quiet, searchPath: schema)
    let pg = try await run("postgres", postgres)
    await postgres.close()
    try await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
    await admin.shutdown()
    print(
        String(
            format: "postgres/sqlite: reload time %.2fx, rotations/s %.0f%%", pg.reload / lite.reload,
            pg.rotations / lite.rotations * 100))
}
