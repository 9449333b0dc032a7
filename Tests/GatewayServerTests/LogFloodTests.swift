import Foundation
import GatewayAPI
import GatewayCore
import Logging
import Synchronization
import Testing

/// Log lines a test gateway wrote.
final class RecordedLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger writing here.
    func logger() -> Logger {
        Logger(label: "recorded") { _ in RecordingLogHandler(log: self) }
    }
}

struct RecordingLogHandler: LogHandler {
    let log: RecordedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        log.append(
            "\(event.level) \(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
    }
}

@Suite("Warnings during an upstream outage are summarised, not repeated per request")
struct LogFloodTests {
    @Test("the first warning at once, then one line per interval with the count held back")
    func throttle() {
        let clock = Mutex(ContinuousClock.now)
        let throttle = WarningThrottle(interval: .seconds(10), now: { clock.withLock { $0 } })
        #expect(throttle.admit("acme|upstream_unavailable") == 0)
        for _ in 0..<500 { #expect(throttle.admit("acme|upstream_unavailable") == nil) }
        #expect(throttle.admit("beta|upstream_unavailable") == 0)
        clock.withLock { $0 += .seconds(10) }
        #expect(throttle.admit("acme|upstream_unavailable") == 500)
        #expect(throttle.admit("acme|upstream_unavailable") == nil)
    }

    @Test("200 failing requests to one tenant's dead platform log one warning line, not 200")
    func outage() async throws {
        let log = RecordedLog()
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(useRedis: false, logger: log.logger()) { harness, client, _ in
                let id = uniqueTenantID("flood")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                fake.injectFault(.status(500))
                for index in 0..<200 {
                    let answer = try await client.getMiniAppManifest(
                        path: .init(tenant: id, id: "hello", versionId: "v\(index)"))
                    // 502 while the platform answers 500; 503 once its circuit opens.
                    switch answer {
                    case .badGateway, .serviceUnavailable: break
                    default: Issue.record("expected 502 or 503, got \(answer)"); return
                    }
                }
                let warnings = log.all.filter { $0.hasPrefix("warning") && $0.contains("upstream problem") }
                // One kind per tenant × code × detail: 502 (platform answered 500) and 503 (circuit open).
                #expect((1...3).contains(warnings.count), "\(warnings.count) warning lines: \(warnings)")
            }
        }
    }
}
