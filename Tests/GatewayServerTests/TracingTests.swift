import Foundation
import GatewayAPI
import HTTPTypes
import Hummingbird
import Logging
import ProcessSpawn
import Synchronization
import Testing

@Suite("OpenTelemetry tracing")
struct TracingTests {
    /// A `gateway serve` process with `GATEWAY_TRACING=otlp`: the caller's `traceparent`
    /// continues through a gateway span to the platform call, and the spans reach an OTLP/HTTP
    /// collector.
    @Test func continuesTheCallersTraceToTheUpstreamAndExportsIt() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            let collector = try await FakeCollector.start()
            defer { collector.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "gw-tracing-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let port = try freeTCPPort()
            let base = "http://127.0.0.1:\(port)"
            let environment = [
                "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path,
                "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64,
                "GATEWAY_HTTP_PORT": "\(port)", "GATEWAY_LOG_LEVEL": "error", "USER": "tester",
                "GATEWAY_TRACING": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": collector.base,
                "OTEL_BSP_SCHEDULE_DELAY": "100",
            ]
            let gateway = try ChildProcess.start(ChildProcess.binary("gateway"), ["serve"], environment: environment)
            defer { gateway.kill() }
            let up = await eventually(within: .seconds(30)) {
                (try? await TestHTTP.noRedirects.get(url: "\(base)/healthz").get().status == .ok) ?? false
            }
            try #require(up)
            let update = try await ChildProcess.run(
                ChildProcess.binary("gatewayctl"),
                [
                    "tenant", "update", "demo", "--platform-url", fake.baseURL, "--project-id", fake.projectID,
                    "--subscription-key", fake.subscriptionKey,
                ], environment: environment)
            try #require(update.status == 0, "\(update.output)")
            let token = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "python3", RepositoryFile.url("scripts/demo-token.py").path, base,
                    folder.appendingPathComponent("demo-user.txt").path,
                ], environment: ProcessInfo.processInfo.environment
            ).output.trimmingCharacters(in: .whitespacesAndNewlines)

            let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
            let callerSpan = "00f067aa0ba902b7"
            let path = "\(base)/t/demo/v1/miniapps/hello/versions/v1/manifest"
            let manifested = await eventually(within: .seconds(3)) {
                let answer = try? await ClusterTests.request(
                    path,
                    headers: [("Authorization", "Bearer \(token)"), ("traceparent", "00-\(traceID)-\(callerSpan)-01")])
                return answer?.status == 200
            }
            try #require(manifested, "the manifest was not served from the fake platform")
            let sent = try #require(fake.requests(matching: "/metadata").last?.headers["traceparent"])
            let parts = sent.split(separator: "-")
            #expect(parts.count == 4 && parts[1] == traceID, "the platform call is not in the caller's trace: \(sent)")
            #expect(
                parts.count == 4 && parts[2] != callerSpan,
                "no gateway span between the caller and the platform call: \(sent)")

            // The batch reaches the collector, carrying the trace id (16 raw bytes in protobuf).
            let traceBytes = stride(from: 0, to: traceID.count, by: 2).map { offset -> UInt8 in
                let start = traceID.index(traceID.startIndex, offsetBy: offset)
                return UInt8(traceID[start ..< traceID.index(start, offsetBy: 2)], radix: 16)!
            }
            let exported = await eventually(within: .seconds(10)) {
                collector.bodies.contains { $0.contains(traceBytes) }
            }
            #expect(exported, "no span of the trace reached the collector (\(collector.bodies.count) export(s))")
        }
    }

    /// Tracing is off unless asked for: no trace context is sent upstream.
    @Test func offByDefault() async throws {
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("untraced")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                _ = try await client.getMiniAppManifest(path: .init(tenant: id, id: "hello", versionId: "v1")).ok
                let call = try #require(fake.requests(matching: "/metadata").last)
                #expect(call.headers["traceparent"] == nil)
            }
        }
    }
}

/// An OTLP/HTTP collector that accepts `POST /v1/traces` and keeps every body.
final class FakeCollector: Sendable {
    let port: Int
    private let received: Box
    private let task: Task<Void, any Error>

    var base: String { "http://127.0.0.1:\(port)" }
    var bodies: [[UInt8]] { received.storage.withLock { $0 } }

    private init(port: Int, received: Box, task: Task<Void, any Error>) {
        self.port = port
        self.received = received
        self.task = task
    }

    static func start() async throws -> FakeCollector {
        let bodies = Box()
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            bodies.append(Array(buffer: body))
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"])
        }
        var logger = Logger(label: "fake-collector")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await app.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return FakeCollector(port: port, received: bodies, task: task)
    }

    func stop() {
        task.cancel()
    }

    /// Shared between the route and the collector.
    private final class Box: Sendable {
        let storage = Mutex<[[UInt8]]>([])
        func append(_ body: [UInt8]) { storage.withLock { $0.append(body) } }
    }
}

extension Array where Element == UInt8 {
    /// Whether `part` occurs in these bytes.
    func contains(_ part: [UInt8]) -> Bool {
        guard !part.isEmpty, part.count <= count else { return false }
        return (0 ... count - part.count).contains { self[$0 ..< $0 + part.count].elementsEqual(part) }
    }
}
