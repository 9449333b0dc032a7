import Foundation
import ProcessSpawn
import Testing

/// The flood issue 27 measured: half-sent request heads from a few addresses, held and
/// reopened, against a gateway process limited to 2,048 descriptors; a client from
/// another address is admitted and answered all along, while the flood is refused by the
/// reason the case names. Runs `Tests/Interop/flood.py` for `FLOOD_SECONDS` (default 30) per
/// case. One address runs into its per-address cap (256); ten addresses (500 each) stay under
/// it and fill the server instead, so they are turned away by the fair share while it is
/// overloaded. The test asserts the mechanism (every probe admitted and answered, the flood
/// refused and counted); how fast a probe is answered under the flood is a figure of
/// `make bench` on a release build (docs/benchmarks.md), not a wall-clock bound here, where
/// the debug build shares two cores with the flooder (issue 47).
@Suite("Connection floods: half-open sockets from a few addresses never lock another address out", .serialized)
struct ConnectionFloodTests {
    static let seconds = ProcessInfo.processInfo.environment["FLOOD_SECONDS"] ?? "30"

    @Test("every probe from 127.0.0.1 is admitted and answered 200 while the flood's half-open connections are refused",
          arguments: [(2_100, ["127.0.0.2"], "per_address"), (5_000, (2 ... 11).map { "127.0.0.\($0)" }, "fair_share")])
    func flood(connections: Int, sources: [String], refusal: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gw-flood-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try freeTCPPort()
        let environment = [
            "GATEWAY_HTTP_PORT": "\(port)",
            "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path,
            "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64, "GATEWAY_LOG_LEVEL": "error",
            "GATEWAY_DEMO_CATALOG": "",
            "PATH": "/usr/bin:/bin",
        ]
        // `ulimit -n 2048` as the issue measured, then the gateway itself.
        let gateway = try ChildProcess.start(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", "ulimit -n 2048 && exec \"$0\" serve", ChildProcess.binary("gateway").path],
            environment: environment, errorLog: folder.appendingPathComponent("gateway.log"))
        defer { gateway.kill() }
        let up = await eventually(within: .seconds(30)) {
            (try? await TestHTTP.noRedirects.get(url: "http://127.0.0.1:\(port)/t/demo/v1/host-config").get().status
                == .ok) ?? false
        }
        try #require(
            up,
            "gateway not up: \((try? String(contentsOf: folder.appendingPathComponent("gateway.log"), encoding: .utf8)) ?? "")"
        )

        let run = try await PythonScript.run(
            "flood.py",
            [
                "--port", "\(port)", "--connections", "\(connections)", "--sources", sources.joined(separator: ","),
                "--seconds", Self.seconds,
            ])
        let line = try #require(
            run.output.split(separator: "\n").last { $0.hasPrefix("{") }, "flood.py: \(run.output.suffix(500))")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let probes = try #require(report["probes"] as? [[String: Any]])
        // Enough probes for "every probe admitted" to mean something. Not a rate: the prober is
        // a process on the same starved cores (a CI run with builds beside it made 14 in 30 s).
        #expect(probes.count >= 5, "\(probes.count) probes")
        // Every newcomer got in and was answered while the flood ran (a probe's socket waits up to
        // 5 s, so a SYN retried after a full accept queue still counts as admitted).
        let refused = probes.filter { ($0["status"] as? Int) != 200 }
        #expect(
            refused.isEmpty,
            "\(refused.count) of \(probes.count) probes not answered: \(refused.prefix(5)); flood held at most \(report["most_held"] ?? "?")"
        )
        // The flood did hold sockets (the test is not vacuous).
        #expect((report["most_held"] as? Int ?? 0) >= 200, "\(report)")
        let metrics = try await TestHTTP.noRedirects.get(url: "http://127.0.0.1:\(port)/metrics").get()
        let text = String(buffer: metrics.body ?? .init())
        let refusals = text.split(separator: "\n").first {
            $0.hasPrefix("gateway_http_connections_refused_total{") && $0.contains("reason=\"\(refusal)\"")
        }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        #expect(refusals >= 100, "\(refusal) refusals counted: \(refusals)")
        print(
            "flood \(connections) from \(sources.count) addresses: \(Int(refusals)) refused (\(refusal)), \(probes.count) probes, slowest \(probes.compactMap { $0["seconds"] as? Double }.max() ?? -1) s, held at most \(report["most_held"] ?? "?"), opened \(report["opened"] ?? "?")"
        )
    }
}
