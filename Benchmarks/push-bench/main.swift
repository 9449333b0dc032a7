// One message to N devices through the gateway's delivery worker: seeds a tenant with N FCM
// devices (20 per user, every user allowing notifications from mini app `shop`) and FCM
// credentials pointing at a fake, queues ONE message to all, then watches the outbox until
// nothing is pending. Prints deliveries/s, time to drain and the outcome counts. The gateway
// (another process on the same database) does the delivering; RSS is the caller's to sample.
//
// Usage: push-bench DATABASE FAKE_FCM_BASE_URL [devices=100000]
// DATABASE: the SQLite file, or a postgres:// URL (the gateway's GATEWAY_DATABASE_URL).
// (GATEWAY_MASTER_KEY as for the gateway: the credentials and tokens are sealed with it).
import Crypto
import Foundation
import GatewayCore
import GatewayPostgres
import GatewaySQLite
import Logging
import _CryptoExtras

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, let masterKeyText = ProcessInfo.processInfo.environment["GATEWAY_MASTER_KEY"] else {
    FileHandle.standardError.write(Data("usage: push-bench DATABASE_PATH FAKE_FCM_BASE_URL [devices]\n".utf8))
    exit(2)
}
let (path, fake) = (arguments[0], arguments[1])
let deviceCount = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let tenantID = "pushbench"
let sealer = SecretSealer(masterKey: try MasterKey(base64: masterKeyText))
let stores =
    path.hasPrefix("postgres")
    ? try await PostgresStores.open(url: path, sealer: sealer, logger: Logger(label: "push-bench"))
    : try SQLiteTenantStore.open(path: path, sealer: sealer).durableStores()

func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

let seedStart = ContinuousClock.now
if try await stores.tenants.tenant(id: tenantID) == nil {
    try await stores.tenants.create(Tenant(id: tenantID, displayName: "Push bench"), actor: "push-bench")
}
let account: [String: String] = [
    "type": "service_account", "project_id": "bench", "private_key_id": "k1",
    "private_key": try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation,
    "client_email": "bench@bench.iam.gserviceaccount.com", "token_uri": fake + "/token",
]
try await stores.pushCredentials.setCredentials(
    .fcm(try FCMCredentials(serviceAccountJSON: try JSONSerialization.data(withJSONObject: account))),
    tenantID: tenantID, now: Date())
let devices = DeviceService(store: stores.devices, maxPerUser: 20)
let users = (deviceCount + 19) / 20
for user in 0..<users {
    let userID = String(format: "user-%06d", user)
    for device in 0..<min(20, deviceCount - user * 20) {
        _ = try await devices.register(
            .init(provider: .fcm, token: "bench-token-\(user)-\(device)", platform: .android, locale: "en"),
            tenantID: tenantID, userID: userID)
    }
    let owner = UserMiniAppKey(tenantID: tenantID, userID: userID, miniAppID: "shop")
    try await stores.consents.touch(owner)
    _ = try await stores.consents.setConsents([CustomPermission.notifications.rawValue: .allowed], for: owner)
}
print(String(format: "seeded %d devices of %d users in %.1f s", deviceCount, users, seconds(since: seedStart)))

let sender = SenderTokenClaims(
    clientID: "bench-sender", tenantID: tenantID, scopes: [NotificationService.sendScope], miniApps: ["shop"],
    jti: "bench", expiresAt: .distantFuture)
let service = NotificationService(outbox: stores.outbox, domains: stores.domains)
let queueStart = ContinuousClock.now
let queued = try await service.send(
    PushContent(
        miniAppID: "shop", recipients: .allConsented,
        texts: ["default": PushText(title: "Bench", body: "One message to every device")], ttlSeconds: 3600),
    from: sender, idempotencyKey: "bench-\(UUID().uuidString)")
guard case .queued(let messageID, _) = queued else { fatalError("not queued: \(queued)") }
let queueTime = seconds(since: queueStart)
print(String(format: "queued %@ in %.2f s", messageID, queueTime))

let drainStart = ContinuousClock.now
var lastPending = -1
while true {
    let status = try await service.status(of: messageID, sender: sender)
    let pending = status.counts[.pending] ?? 0
    if pending == 0 {
        let drain = seconds(since: drainStart)
        let counts = status.counts
        print(String(format: "drained %d deliveries in %.2f s: %.0f deliveries/s", deviceCount, drain,
                     Double(deviceCount) / drain))
        print("counts: " + counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
            .joined(separator: ", "))
        break
    }
    if pending != lastPending, Int(seconds(since: drainStart) * 10) % 20 == 0 {
        print(String(format: "  %.1f s: %d pending", seconds(since: drainStart), pending))
        lastPending = pending
    }
    if seconds(since: drainStart) > 900 {
        print("gave up after 900 s with \(pending) pending")
        exit(1)
    }
    try await Task.sleep(for: .milliseconds(200))
}
let rows = try await stores.outbox.backlog(now: Date())
print("outbox rows pending after the drain: \(rows.reduce(0) { $0 + $1.pending })")
await stores.close()
