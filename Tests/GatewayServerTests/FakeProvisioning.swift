import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A fake provisioning service following `OpenAPI/upstreams/provisioning.yaml`: a real
/// Hummingbird server that checks `X-Api-Key`, evaluates every search criterion (ANDed),
/// pages with start/count (0 = all) and records requests.
final class FakeProvisioning: Sendable {
    struct Item: Sendable {
        var id: String
        var name: String
        var description: String = ""
        var tags: [String] = []
        var lat: Double = 0
        var lon: Double = 0
        var featuredRank: Int?
        var attributes: [String: String] = [:]
        var version: Int = 1
        var type: String = "web"
    }

    struct State: Sendable {
        var items: [Item] = []
        var failStatus: Int?
        var requests: [(path: String, query: [(String, String)], headers: [String: String])] = []
    }

    let superAppID = "super-1"
    let apiKey = "prov-key-9"
    let state = Mutex(State())
    private let task: Task<Void, any Error>
    let port: Int
    var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(task: Task<Void, any Error>, port: Int) {
        self.task = task
        self.port = port
    }

    static func with<T: Sendable>(_ body: @Sendable (FakeProvisioning) async throws -> T) async throws -> T {
        let holder = Mutex<FakeProvisioning?>(nil)
        let router = Router()
        router.add(middleware: FakeProvisioningResponder { holder.withLock { $0 } })
        let (task, port) = try await LocalTestServer.start(router, label: "fake-provisioning")
        defer { task.cancel() }
        let fake = FakeProvisioning(task: task, port: port)
        holder.withLock { $0 = fake }
        return try await body(fake)
    }
}

struct FakeProvisioningResponder: RouterMiddleware {
    typealias Context = BasicRequestContext
    let fake: @Sendable () -> FakeProvisioning?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let fake = fake() else { return FakePlatformResponder.json(503, "{}") }
        let path = request.uri.path
        let query = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let state = fake.state.withLock { state in
            state.requests.append((path, query, headers))
            return state
        }
        if let status = state.failStatus {
            return FakePlatformResponder.json(status, #"{"code":\#(status),"message":"injected"}"#)
        }
        guard headers["x-api-key"] == fake.apiKey else {
            return FakePlatformResponder.json(401, #"{"code":401,"message":"bad key"}"#)
        }
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[0] == "superapps", parts[1] == fake.superAppID, parts[2] == "miniapps" else {
            return FakePlatformResponder.notFound()
        }
        if parts.count == 4 {
            guard let item = state.items.first(where: { $0.id == parts[3] }) else {
                return FakePlatformResponder.notFound()
            }
            return FakePlatformResponder.json(200, Self.encode(item))
        }
        var items = state.items.filter { Self.matches($0, query) }
        if query.contains(where: { $0.0 == "featured" && $0.1 == "true" }) {
            items = items.filter { $0.featuredRank != nil }.sorted { $0.featuredRank! < $1.featuredRank! }
        }
        let start = Int(query.first { $0.0 == "start" }?.1 ?? "0") ?? 0
        let count = Int(query.first { $0.0 == "count" }?.1 ?? "0") ?? 0
        let page = items.dropFirst(start).prefix(count == 0 ? Int.max : count)
        return FakePlatformResponder.json(
            200, #"{"total":\#(items.count),"items":[\#(page.map(Self.encode).joined(separator: ","))]}"#)
    }

    static func matches(_ item: FakeProvisioning.Item, _ query: [(String, String)]) -> Bool {
        let value = { (name: String) in query.first { $0.0 == name }?.1 }
        let ids = query.filter { $0.0 == "id" }.map(\.1)
        if !ids.isEmpty, !ids.contains(item.id) { return false }
        if let text = value("text")?.lowercased(),
            !(item.name.lowercased().contains(text) || item.description.lowercased().contains(text))
        {
            return false
        }
        if let tag = value("tag"), !item.tags.contains(tag) { return false }
        if let lat = value("lat").flatMap(Double.init), let lon = value("lon").flatMap(Double.init),
            let radius = value("radius").flatMap(Double.init)
        {
            if distance(lat, lon, item.lat, item.lon) > radius { return false }
        }
        for filter in query.filter({ $0.0 == "filter" }).map(\.1) {
            let parts = filter.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, let field = parts[0].removingPercentEncoding, let actual = item.attributes[field]
            else { return false }
            let values = parts[2].split(separator: ",").map { String($0).removingPercentEncoding ?? "" }
            let ok: Bool
            switch parts[1] {
            case "equals": ok = actual == values[0]
            case "notEquals": ok = actual != values[0]
            case "contains": ok = actual.contains(values[0])
            case "in": ok = values.contains(actual)
            case "greater": ok = (Double(actual) ?? 0) > (Double(values[0]) ?? 0)
            case "greaterOrEquals": ok = (Double(actual) ?? 0) >= (Double(values[0]) ?? 0)
            case "less": ok = (Double(actual) ?? 0) < (Double(values[0]) ?? 0)
            case "lessOrEquals": ok = (Double(actual) ?? 0) <= (Double(values[0]) ?? 0)
            default: ok = false
            }
            if !ok { return false }
        }
        return true
    }

    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_000.0, p = Double.pi / 180
        let a = 0.5 - cos((lat2 - lat1) * p) / 2 + cos(lat1 * p) * cos(lat2 * p) * (1 - cos((lon2 - lon1) * p)) / 2
        return 2 * r * asin(sqrt(a))
    }

    static func encode(_ item: FakeProvisioning.Item) -> String {
        #"{"id":"\#(item.id)","name":"\#(item.name)","description":"\#(item.description)","version":\#(item.version),"type":"\#(item.type)","icon":"https://cdn.example/\#(item.id).png","#
            + #""entryPoint":"https://apps.example/\#(item.id)/index.html","metadataUrl":"https://apps.example/\#(item.id)/metadata.json","#
            + #""servicesUrl":"https://services.example/\#(item.id)","signature":"sig-\#(item.id)"}"#
    }
}
