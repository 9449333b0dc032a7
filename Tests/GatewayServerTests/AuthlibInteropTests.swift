import Foundation
import GatewayCore
import Testing

@Suite("Third-party client: Python authlib")
struct AuthlibInteropTests {
    /// True when `python3 -c "import authlib, requests"` succeeds.
    static var authlibAvailable: Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import authlib, requests"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("authlib OAuth2Session: PKCE login, token, API call, refresh, revocation",
          .enabled(if: authlibAvailable, "python3 with authlib and requests is not installed (pip install -r scripts/test-requirements.txt)"))
    func authlib() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Interop/authlib_pkce.py").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script, kit.base, "demo", kit.clientID, "http://127.0.0.1:43210/callback", kit.username, kit.password]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            // Read on a detached task so the gateway's event loops keep serving the script.
            let output = await Task.detached { String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }.value
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(output)")
            #expect(output.contains("ok revoke"), "\(output)")
        }
    }
}
