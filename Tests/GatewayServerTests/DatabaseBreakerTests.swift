import AsyncHTTPClient
import Foundation
import GatewayCore
import ProcessSpawn
import Testing

/// Issue 47, item 6: a breaker on the database. PostgreSQL cut off (a proxy that stops passing
/// bytes, as a partition does): requests that need it answer 503 `database_unavailable` with
/// `Retry-After` without waiting for the statement deadline, what needs no database keeps
/// answering, and the breaker closes once the database answers again.
@Suite(
    "PostgreSQL cut off: requests that need it are refused at once, the rest keep serving",
    .enabled(if: DatabaseBackend.serverURL != nil), .serialized)
struct DatabaseBreakerTests {
    /// A link the test cuts and heals (`Tests/Interop/cutproxy.py`).
    final class CutLink: Sendable {
        let port: Int
        let process: SpawnedProcess

        init(to target: URL) throws {
            port = try freeTCPPort()
            process = try ChildProcess.start(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["python3", RepositoryFile.url("Tests/Interop/cutproxy.py").path,
                 "\(target.host ?? "127.0.0.1"):\(target.port ?? 5432)", "--port", "\(port)"],
                environment: ProcessInfo.processInfo.environment)
        }

        func cut() { process.signal(SIGUSR1) }
        func heal() { process.signal(SIGUSR2) }
    }

    /// The breaker's state as `/metrics` shows it.
    static func breakerOpen(_ port: Int) async throws -> Bool {
        let text = try await StagedReleaseEndpointTests.text("http://127.0.0.1:\(port)/metrics")
        return text.split(separator: "\n").contains {
            ($0.hasPrefix("gateway_database_breaker_open ") || $0.hasPrefix("gateway_database_breaker_open{"))
                && Double($0.split(separator: " ").last ?? "") == 1
        }
    }

    @Test("503 database_unavailable with Retry-After, never the 10 s deadline; stored answers, JWKS and discovery still 200; closed after the healing")
    func failsFastWhileCut() async throws {
        let (url, schema) = try await DatabaseBackend.makeSchema()
        defer { Task { await DatabaseBackend.dropSchema(schema) } }
        let serverURL = try #require(DatabaseBackend.serverURL)
        let server = try #require(URL(string: serverURL))
        let link = try CutLink(to: server)
        defer { link.process.kill() }
        var components = URLComponents(string: url)!
        components.port = link.port
        let through = try #require(components.string)
        #expect(
            await eventually(within: .seconds(10)) {
                guard let probe = try? await RawConnection.connect(port: link.port) else { return false }
                await probe.close()
                return true
            })
        try await FakePlatform.with { fake in
            fake.seedHello()
            try await GatewayHarness.withGateway(database: through, databaseProbe: .milliseconds(250)) { harness, _, port in
                let id = uniqueTenantID("dbcut")
                let (token, _) = try await StagedReleaseEndpointTests.signedIn(harness, GatewayHarness.tenant(id, on: fake))
                let base = "http://127.0.0.1:\(port)/t/\(id)"
                let contacts = "\(base)/v1/me/contacts"
                #expect(try await NotificationEndpointTests.call(.PUT, contacts, token: token, json: #"{"contacts": []}"#).status == 200)
                #expect(try await StagedReleaseEndpointTests.get("\(base)/v1/miniapps/hello", token: token).status == 200)
                #expect(try await !Self.breakerOpen(port))

                link.cut()
                // The breaker opens within 0.95 s (a probe every 250 ms, two unanswered for 350 ms);
                // a request waiting on the database then is refused at that moment, not at its deadline.
                let started = ContinuousClock.now
                let first = try await NotificationEndpointTests.call(.PUT, contacts, token: token, json: #"{"contacts": []}"#)
                let firstTook = ContinuousClock.now - started
                #expect(first.status == 503 && first.json["code"] == .string("database_unavailable"), "\(first.status) \(first.json) via \(through)")
                #expect(firstTook < .seconds(9), "waited \(firstTook): the statement deadline (10 s), not the breaker")
                #expect(try await Self.breakerOpen(port))
                // Open: refused without waiting, with Retry-After.
                var slowest = Duration.zero
                for _ in 0..<20 {
                    let asked = ContinuousClock.now
                    var request = HTTPClientRequest(url: "\(base)/v1/me")
                    request.headers.add(name: "Authorization", value: "Bearer \(token)")
                    let response = try await TestHTTP.noRedirects.execute(request, timeout: .seconds(20))
                    slowest = max(slowest, ContinuousClock.now - asked)
                    #expect(response.status.code == 503 && response.headers.first(name: "Retry-After") != nil)
                }
                #expect(slowest < .seconds(9), "slowest refusal \(slowest)")
                // What needs no database answers.
                #expect(try await StagedReleaseEndpointTests.get("\(base)/v1/miniapps/hello", token: token).status == 200)
                #expect(try await StagedReleaseEndpointTests.get("\(base)/.well-known/jwks.json", token: nil).status == 200)
                #expect(
                    try await StagedReleaseEndpointTests.get("\(base)/.well-known/openid-configuration", token: nil).status
                        == 200)
                print("database cut: first refusal after \(firstTook), slowest of 20 while open \(slowest)")

                link.heal()
                #expect(await eventually(within: .seconds(10)) { (try? await Self.breakerOpen(port)) == false })
                #expect(try await NotificationEndpointTests.call(.PUT, contacts, token: token, json: #"{"contacts": []}"#).status == 200)
                let metrics = try await StagedReleaseEndpointTests.text("http://127.0.0.1:\(port)/metrics")
                #expect(metrics.contains("gateway_database_breaker_opens_total 1"), "opened once")
            }
        }
    }
}
