import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A fake mini-app platform: a real Hummingbird server on a free port that follows the
/// platform contract of DESIGN.md (paths, `apiKey: ras-…`, both error body shapes,
/// `Signature` header), records every request and injects faults.
final class FakePlatform: Sendable {
    struct Recorded: Sendable {
        let path: String
        let query: [String: String]
        let headers: [String: String]
        /// When the request arrived.
        let at: ContinuousClock.Instant = .now
    }

    enum Fault: Sendable {
        case status(Int, retryAfter: String? = nil)
        case malformed
        case delay(Duration)
        /// Sends the response head and part of a body, then drops the connection.
        case reset
    }

    struct State: Sendable {
        var apps: [PlatformMiniAppInfo] = []
        /// Overrides of `?miniAppId=` answers (e.g. `[]` = no published version).
        var infos: [String: [PlatformMiniAppInfo]] = [:]
        /// Key `id/version/lang` (lang empty = default language).
        var metadata: [String: PlatformMetadata] = [:]
        /// `bundleManifest` JSON text as the platform sends it, by the same key (wins over `metadata`).
        var rawMetadata: [String: String] = [:]
        var fileManifests: [String: PlatformFileManifest] = [:]
        var keys: [String: PlatformPublicKey] = [:]
        var files: [String: [UInt8]] = [:]
        /// Preview-code answers as the platform sends them (its `host` carries the subscription key).
        var previews: [String: JSONValue] = [:]
        /// In-app purchase items by mini app id (`{items:[…]}`); none: 404 as a platform without them.
        var purchaseItems: [String: JSONValue] = [:]
        /// Recorded transactions by token, as the platform answers them.
        var transactions: [String: JSONValue] = [:]
        /// The bodies of transaction POSTs, as received.
        var transactionBodies: [JSONValue] = []
        var fault: Fault?
        /// How many more requests get `fault` (nil = every request).
        var faultCount: Int?
        var requests: [Recorded] = []
    }

    let projectID = "proj-1"
    let subscriptionKey = "sub-key-123"
    let state = Mutex(State())
    private let task: Task<Void, any Error>
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var requests: [Recorded] { state.withLock { $0.requests } }

    func requests(matching suffix: String) -> [Recorded] {
        requests.filter { $0.path.hasSuffix(suffix) || $0.path.contains(suffix) }
    }

    func set(_ update: (inout State) -> Void) {
        state.withLock { update(&$0) }
    }

    func injectFault(_ fault: Fault?, count: Int? = nil) {
        state.withLock {
            $0.fault = fault
            $0.faultCount = count
        }
    }

    private init(task: Task<Void, any Error>, port: Int) {
        self.task = task
        self.port = port
    }

    /// Starts a fake, runs `body`, stops it.
    static func with<T: Sendable>(_ body: @Sendable (FakePlatform) async throws -> T) async throws -> T {
        let fake = try await start()
        defer { fake.task.cancel() }
        return try await body(fake)
    }

    static func start() async throws -> FakePlatform {
        let holder = Mutex<FakePlatform?>(nil)
        let router = Router()
        router.add(middleware: FakePlatformResponder { holder.withLock { $0 } })
        let (task, port) = try await LocalTestServer.start(router, label: "fake-platform")
        let fake = FakePlatform(task: task, port: port)
        holder.withLock { $0 = fake }
        return fake
    }

    func stop() {
        task.cancel()
    }
}
