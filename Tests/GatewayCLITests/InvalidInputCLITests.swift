import Foundation
import GatewayCore
import Testing

@Suite struct InvalidInputCLITests {
    static let longName = String(repeating: "n", count: 10_000)

    /// Commands that must fail with exit 2 and one `error:` line, writing nothing.
    static let badCommands: [[String]] = [
        ["tenant", "create", "A", "--display-name", "x"],
        ["tenant", "create", "-x", "--display-name", "x"],
        ["tenant", "create", "a", "--display-name", "x"],
        ["tenant", "create", String(repeating: "a", count: 64), "--display-name", "x"],
        ["tenant", "create", "acme_1", "--display-name", "x"],
        ["tenant", "create", "beta", "--display-name", "x", "--bogus"],
        ["tenant", "create", "beta", "--bogus"],
        ["tenant", "create", "beta"],
        ["tenant", "create", "beta", "--display-name", longName],
        ["tenant", "create", "beta", "--display-name", "x", "--platform-url", "ftp://x"],
        ["tenant", "create", "beta", "--display-name", "x", "--provisioning-url", "not a url"],
        ["tenant", "create", "beta", "--display-name", "x", "--primary-color", "red"],
        ["tenant", "create", "beta", "--display-name", "x", "--secondary-color", "#GGGGGG"],
        ["tenant", "create", "beta", "--display-name", "x", "--storage-max-bytes", "-5"],
        ["tenant", "create", "beta", "--display-name", "x", "--storage-max-bytes", "99999999999999999999999"],
        ["tenant", "create", "beta", "--display-name", "x", "--storage-max-bytes", "2000000000"],
        ["tenant", "create", "beta", "--display-name", "x", "--preview-mode", "maybe"],
        ["tenant", "create", "beta", "--display-name", "x", "--manifest-ttl", "0"],
        ["tenant", "update", "acme", "--display-name", longName],
        ["tenant", "update", "acme", "--platform-url", "ftp://x"],
        ["tenant", "update", "acme", "--cache-max-days", "99999"],
        ["tenant", "update", "acme"],
        ["tenant", "update", "acme", "--unknown-flag", "1"],
        ["tenant", "update", "nope", "--display-name", "x"],
        ["tenant", "show", "A"],
        ["tenant", "show", "nope"],
        ["tenant", "delete", "acme"],
        ["tenant", "delete", "nope", "--yes"],
        ["tenant", "suspend", "nope"],
        ["tenant", "export", "nope"],
        ["tenant", "frobnicate"],
        ["nonsense"],
    ]

    @Test func badInputExitsTwoWithOneLineAndWritesNothing() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        #expect(await ctl.run(["tenant", "create", "acme", "--display-name", "Acme"]).code == 0)
        let before = try await ctl.store().tenant(id: "acme")
        let token = try await ctl.store().changeToken()
        for arguments in Self.badCommands {
            let result = await ctl.run(arguments)
            let label = arguments.joined(separator: " ").prefix(120)
            #expect(result.code == 2, "\(label): exit \(result.code)")
            #expect(result.error.hasPrefix("error: "), "\(label): \(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1, "\(label): \(result.error)")
            #expect(result.error.count < 400, "\(label): error too long")
            #expect(result.output.isEmpty, "\(label): \(result.output)")
        }
        let store = try ctl.store()
        #expect(try await store.changeToken() == token)
        #expect(try await store.tenant(id: "acme") == before)
        #expect(try await store.allTenants().map(\.id) == ["acme"])
    }

    @Test func badInputOnAFreshPathCreatesNoDatabase() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        for arguments in Self.badCommands where arguments.count > 2 && arguments[1] == "create" {
            #expect(await ctl.run(arguments).code == 2)
        }
        #expect(!ctl.databaseExists)
    }

    @Test func messagesNameTheFlag() async throws {
        let ctl = try CLIHarness()
        defer { ctl.remove() }
        let url = await ctl.run(["tenant", "create", "beta", "--display-name", "x", "--platform-url", "ftp://x"])
        #expect(url.error == "error: --platform-url must be an absolute http(s) URL, got \"ftp://x\"\n")
        let storage = await ctl.run(["tenant", "create", "beta", "--display-name", "x", "--storage-max-bytes", "-5"])
        #expect(storage.error == "error: --storage-max-bytes must be between 1 and 1000000000, got -5\n")
        let delete = await ctl.run(["tenant", "delete", "beta"])
        #expect(delete.error == "error: refusing to delete tenant beta without --yes\n")
        let id = await ctl.run(["tenant", "show", "acme_1"])
        #expect(id.error.hasPrefix("error: tenant id must be 2-63 characters"))
    }

    /// Without a master key in the environment, a development key would be generated
    /// beside the database: a mistyped `--db` must create neither.
    @Test func readOnlyCommandsOnAMissingDatabaseCreateNothing() async throws {
        var ctl = try CLIHarness()
        defer { ctl.remove() }
        ctl.environment["GATEWAY_MASTER_KEY"] = nil
        let typo = ctl.folder + "/typo/gateway.sqlite"
        for arguments in [
            ["tenant", "list"], ["tenant", "show", "acme"], ["tenant", "export"], ["keys", "list", "--tenant", "acme"],
            ["client", "list", "--tenant", "acme"], ["tenant", "update", "acme", "--display-name", "X"],
        ] {
            let result = await ctl.run(arguments + ["--db", typo])
            #expect(result.code == 1, "\(arguments): \(result.code) \(result.error)")
            #expect(result.error.contains("no database at \(typo)"), "\(arguments): \(result.error)")
            #expect(result.error.contains("gatewayctl migrate"))
        }
        #expect(
            !FileManager.default.fileExists(atPath: ctl.folder + "/typo"),
            "a read-only command created the folder, the database or a key")
        // `migrate` is the way to create one.
        #expect(await ctl.run(["migrate", "--db", typo]).code == 0)
        #expect(FileManager.default.fileExists(atPath: typo))
        #expect(await ctl.run(["tenant", "list", "--db", typo]).code == 0)
    }
}
