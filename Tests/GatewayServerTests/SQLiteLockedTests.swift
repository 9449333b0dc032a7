import AsyncHTTPClient
import Foundation
import GatewayCore
import NIOCore
import ProcessSpawn
import Testing

/// Issue 47, item 6, for SQLite: a database file the gateway cannot write (another process holds
/// its write lock past the busy timeout, as `gatewayctl` in a long transaction would; an I/O
/// error or a full disk alike) answered 500 `internal_error`. It is the database being away for
/// a moment, as with PostgreSQL: 503 `database_unavailable` with `Retry-After`.
@Suite("SQLite locked by another process: 503 database_unavailable, then served again")
struct SQLiteLockedTests {
    /// Another process (Python's sqlite3) holding `BEGIN EXCLUSIVE` on `path` until killed.
    static func lockWrites(_ path: String, folder: URL) async throws -> SpawnedProcess {
        let marker = folder.appendingPathComponent("locked")
        let script = """
            import sqlite3, sys, time
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN EXCLUSIVE")
            open(sys.argv[2], "w").close()
            time.sleep(600)
            """
        let locker = try ChildProcess.start(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, path, marker.path],
            environment: ProcessInfo.processInfo.environment)
        let locked = await eventually(within: .seconds(10)) { FileManager.default.fileExists(atPath: marker.path) }
        if !locked { locker.kill() }
        try #require(locked, "the locker never took the lock")
        return locker
    }

    @Test("a write while the file is locked elsewhere answers 503 database_unavailable with Retry-After; reads still answer")
    func lockedFile() async throws {
        try await GatewayHarness.withGateway(backend: .sqlite) { harness, client, port in
            let kit = OAuthTestKit(harness: harness, client: client, port: port)
            try await kit.setUp()
            let token = try await kit.tokens().accessToken
            let contacts = "http://127.0.0.1:\(port)/t/demo/v1/me/contacts"
            let locker = try await Self.lockWrites(harness.configuration.databasePath, folder: harness.folder)
            var request = HTTPClientRequest(url: contacts)
            request.method = .PUT
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: #"{"contacts": []}"#))
            let refused = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(30))
            let body = String(buffer: try await refused.body.collect(upTo: 1 << 16))
            #expect(refused.status.code == 503, "\(body)")
            #expect(body.contains(#""code":"database_unavailable""#), "\(body)")
            #expect(refused.headers.first(name: "Retry-After") != nil)
            // A read needs no write lock (WAL): it answers meanwhile.
            let read = try await NotificationEndpointTests.call(.GET, "http://127.0.0.1:\(port)/t/demo/v1/me", token: token)
            #expect(read.status == 200, "\(read.json)")
            locker.kill()
            let again = await eventually(within: .seconds(10)) {
                (try? await NotificationEndpointTests.call(.PUT, contacts, token: token, json: #"{"contacts": []}"#))?
                    .status == 200
            }
            #expect(again, "served again once the lock is gone")
        }
    }
}
