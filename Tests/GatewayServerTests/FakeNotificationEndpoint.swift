import Foundation
import Hummingbird
import Synchronization

/// A CIBA client's notification endpoint (CIBA §10.2) on 127.0.0.1: records each ping's
/// bearer token and body, and answers 204 (or `status`).
final class FakeNotificationEndpoint: Sendable {
    struct Ping: Sendable, Equatable {
        let authorization: String?
        let body: String
    }

    let port: Int
    private let received = Mutex<[Ping]>([])
    let status = Atomic<Int>(204)

    /// The endpoint's URL, on the address literal (`http://127.0.0.1:<port>/ciba`).
    var url: String { "http://127.0.0.1:\(port)/ciba" }

    var pings: [Ping] { received.withLock { $0 } }

    private init(port: Int) {
        self.port = port
    }

    static func with<T: Sendable>(_ body: @Sendable (FakeNotificationEndpoint) async throws -> T) async throws -> T {
        let holder = Mutex<FakeNotificationEndpoint?>(nil)
        let router = Router()
        router.post("ciba") { request, _ -> Response in
            guard let fake = holder.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            let text = String(buffer: try await request.body.collect(upTo: 65_536))
            fake.received.withLock {
                $0.append(Ping(authorization: request.headers[.authorization], body: text))
            }
            return Response(status: .init(code: fake.status.load(ordering: .relaxed)))
        }
        let (task, port) = try await LocalTestServer.start(router, label: "fake-ciba-endpoint")
        defer { task.cancel() }
        let fake = FakeNotificationEndpoint(port: port)
        holder.withLock { $0 = fake }
        return try await body(fake)
    }
}
