import Foundation
import Testing

/// gatewayctl with a saved session whose server is gone (issue 62 §3): one line naming the
/// server and the ways out, never a dump of the generated client's types.
@Suite("A saved session's server is gone")
struct SavedSessionCLITests {
    @Test("each remote command says which server, why, and gatewayctl logout or --local", arguments: [
        ["tenant", "list"], ["release", "pause", "--tenant", "acme", "hello"], ["client", "list", "--tenant", "acme"],
    ])
    func oneLineNamesTheServerAndTheWayOut(arguments: [String]) async throws {
        var harness = try CLIHarness()
        defer { harness.remove() }
        let home = harness.folder + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        // Port 1 on loopback: nothing listens there.
        let session = #"{"server": "http://127.0.0.1:1", "clientId": "gatewayctl", "accessToken": "sgo_x", "#
            + #""expiresAt": "2099-01-01T00:00:00Z", "operatorName": "alice"}"#
        try Data(session.utf8).write(to: URL(fileURLWithPath: home + "/session.json"))
        harness.environment["GATEWAYCTL_HOME"] = home
        let result = await harness.run(arguments)
        #expect(result.code == 1, "\(result.error)")
        let lines = result.error.split(separator: "\n")
        #expect(lines.count == 1, "\(result.error)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("error: cannot reach the admin API at http://127.0.0.1:1 (connection refused)"), "\(line)")
        #expect(line.contains("gatewayctl logout") && line.contains("--local") && !line.contains("operationInput"))
        // --local acts on the database, whatever the session says.
        let local = await harness.run(arguments + ["--local"])
        #expect(local.error.contains("no database at"), "\(local.error)")
    }
}
