import AsyncHTTPClient
import Foundation
import ProcessSpawn
import Testing

/// SIGTERM drains a gateway process: readiness fails at once while requests are still
/// served for the drain delay, then the process stops cleanly within the shutdown timeout.
@Suite("Graceful shutdown of a gateway process")
struct GracefulShutdownTests {
    @Test(
        "on SIGTERM /readyz answers 503 at once, requests are served through the drain delay, and the process exits 0")
    func drainsThenStops() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-drain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try freeTCPPort()
        let base = "http://127.0.0.1:\(port)"
        let gateway = try ChildProcess.start(
            ChildProcess.binary("gateway"), ["serve"],
            environment: [
                "GATEWAY_HTTP_PORT": "\(port)",
                "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path,
                "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64, "GATEWAY_LOG_LEVEL": "error",
                "GATEWAY_SHUTDOWN_DRAIN_MS": "1500", "GATEWAY_SHUTDOWN_TIMEOUT_MS": "10000",
            ])
        let handle = gateway
        defer { handle.kill() }
        @Sendable func status(_ path: String) async -> Int? {
            guard let response = try? await TestHTTP.noRedirects.get(url: base + path).get() else { return nil }
            return Int(response.status.code)
        }
        let up = await eventually(within: .seconds(20)) { await status("/readyz") == 200 }
        try #require(up, "gateway did not become ready")

        let signalled = ContinuousClock.now
        kill(gateway.processIdentifier, SIGTERM)
        let unready = await eventually(within: .seconds(1)) { await status("/readyz") == 503 }
        #expect(unready, "/readyz still 200 after SIGTERM")
        // Still serving during the drain delay.
        #expect(await status("/healthz") == 200)
        #expect(await status("/t/demo/v1/host-config") == 200)
        #expect(
            ContinuousClock.now - signalled < .milliseconds(1_400),
            "the checks above ran after the drain delay; the test proves nothing")

        let exited = await eventually(within: .seconds(10)) { !handle.isRunning }
        #expect(exited, "the process did not stop within the shutdown timeout")
        #expect(ContinuousClock.now - signalled >= .milliseconds(1_500), "stopped before the drain delay ended")
        if exited { #expect(handle.terminationStatus == 0) }
        #expect(await status("/healthz") == nil, "still accepting after shutdown")
    }
}
