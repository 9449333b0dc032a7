import Foundation
import GatewayCLI
import GatewayCore
import Testing

/// `gatewayctl --database-url`: the same commands on PostgreSQL, and the same refusals.
@Suite("gatewayctl on PostgreSQL", .enabled(if: DatabaseBackend.serverURL != nil))
struct PostgresCLITests {
    private func run(
        _ arguments: [String], folder: URL, environment extra: [String: String] = [:]
    ) async -> (code: Int32, output: String, error: String) {
        let output = CapturedOutput()
        var environment = [
            "GATEWAY_DATABASE_PATH": folder.appendingPathComponent("gateway.sqlite").path, "USER": "tester",
        ]
        environment.merge(extra) { $1 }
        let code = await Gatewayctl.run(arguments: arguments, environment: environment, output: output)
        return (code, output.output, output.error)
    }

    @Test(
        "a database without the schema is refused before a key is made; migrate, create, list work; a bad URL is exit 2"
    )
    func refusalsAndLifecycle() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ctl-pg-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (url, schema) = try await DatabaseBackend.makeSchema()
        defer { Task { await DatabaseBackend.dropSchema(schema) } }

        let list = await run(["tenant", "list", "--database-url", url], folder: folder)
        #expect(list.code == 1)
        #expect(list.error.contains("has no gateway schema"))
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("master.key").path),
            "a development key was generated for a refused command")

        let migrate = await run(
            ["migrate", "--database-url", url, "--json"], folder: folder,
            environment: ["GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64])
        #expect(migrate.code == 0)
        #expect(migrate.output.contains("v4-sessions-revocations"))
        #expect(!migrate.output.contains("gateway-test-password"), "the password was printed")
        let env = ["GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64, "GATEWAY_DATABASE_URL": url]
        #expect(
            await run(
                ["tenant", "create", "acme", "--display-name", "Acme", "--subscription-key", "ras-SECRET-123456"],
                folder: folder, environment: env
            ).code == 0)
        let again = await run(["tenant", "create", "acme", "--display-name", "Acme"], folder: folder, environment: env)
        #expect(again.code == 2)
        #expect(again.error.contains("already exists"))
        let shown = await run(["tenant", "list"], folder: folder, environment: env)
        #expect(shown.output.contains("acme"))

        let bad = await run(["tenant", "list", "--database-url", "mysql://x@y/z"], folder: folder, environment: env)
        #expect(bad.code == 2)
        #expect(bad.error.contains("postgres://"))
        let unreachable = await run(
            ["tenant", "list", "--database-url", "postgres://gateway:pw@127.0.0.1:1/gateway?connect_timeout=2"],
            folder: folder, environment: env)
        #expect(unreachable.code == 1)
        #expect(!unreachable.error.contains(":pw@"), "the password was printed")
    }
}
