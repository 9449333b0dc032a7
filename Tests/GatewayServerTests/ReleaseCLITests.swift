import Foundation
import GatewayCLI
import GatewayCore
import Testing

/// `gatewayctl release ...` against a running gateway on a fake platform (issue 29): the
/// refusals write nothing (exit 2), the platform is asked whether it knows a version, and
/// every action reaches the gateway's answers.
@Suite("gatewayctl release: set, refusals, actions, history, on a live gateway")
struct ReleaseCLITests {
    struct Run {
        var code: Int32
        var output: String
        var error: String
    }

    static func ctl(_ harness: GatewayHarness, _ arguments: [String], stdin: String = "") async -> Run {
        let output = CapturedOutput()
        let environment = [
            "GATEWAY_DATABASE_PATH": harness.configuration.databasePath,
            "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64, "USER": "ops-ann",
            "GATEWAY_DEMO_CATALOG": RepositoryFile.url("Deploy/demo").path,
        ]
        let input = Data(stdin.utf8)
        let code = await Gatewayctl.run(
            arguments: arguments, environment: environment, standardInput: { input }, output: output)
        return Run(code: code, output: output.output, error: output.error)
    }

    @Test("bad input is exit 2 with nothing written; a version the platform does not know is refused")
    func refusals() async throws {
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)
            try await GatewayHarness.withGateway { harness, _, _ in
                let id = uniqueTenantID("relctl")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake), signIn: false)
                let base = ["release", "set", "--tenant", id, "hello"]
                let tooManyUsers = (0...ReleasePolicyRules.maxListedUsers).map { "user-\($0)" }.joined(separator: "\n")
                let refusals: [([String], String, String)] = [
                    (["--candidate", "v2", "--percent", "100.5"], "", "--percent must be 0-100"),
                    (["--candidate", "v2", "--percent", "1.234"], "", "--percent must be 0-100"),
                    (["--candidate", "v2", "--step", "10@2020-01-01T00:00:00Z"], "", "is not in the future"),
                    (["--candidate", "v2", "--step", "50@+2d", "--step", "10@+1d"], "", "steps must be in time order"),
                    (["--candidate", "v2", "--step", "ten@tomorrow"], "", "--step must be PERCENT@TIME"),
                    (["--stable", "v2", "--candidate", "v2"], "", "the candidate is the stable version"),
                    (["--candidate", "v2", "--allow-users-file", "-"], "alice\nbad,user\n", "line 2 is not a user id"),
                    (["--candidate", "v2", "--allow-users-file", "-"], tooManyUsers, "more than 100000 users"),
                    (["--candidate", "v2", "--platform", "symbian"], "", "--platform must be ios, android or any"),
                    (["--candidate", "v2", "--host-version", ">=3 <2"], "", "--host-version must be a range"),
                    (["--percent", "10"], "", "there is no candidate to change"),
                    (["--candidate", "v9", "--percent", "10"], "", "neither the platform nor the release policy knows version v9"),
                    (["--candidate", "v2", "--halt-error-ratio", "0.5"], "", "the halt error ratio must be 1-1000"),
                ]
                for (flags, stdin, message) in refusals {
                    let run = await Self.ctl(harness, base + flags, stdin: stdin)
                    #expect(run.code == 2, "\(flags): \(run.error)")
                    #expect(run.error.contains(message), "\(flags): \(run.error)")
                }
                #expect(try await harness.operatorStores.releases.policy(tenantID: id, miniAppID: "hello") == nil)
                #expect(await Self.ctl(harness, ["release", "pause", "--tenant", id, "hello"]).code == 2)
                // Issue 47: withdraw and rollback of a version neither the platform nor the policy
                // knows exit 2 and write nothing (withdraw used to exit 0 and write history).
                for action in [["withdraw", "--version", "v9"], ["withdraw", "--version", "v2", "--use-instead", "v9"],
                               ["rollback", "--to", "v9"]] {
                    let run = await Self.ctl(harness, ["release"] + action.prefix(1) + ["--tenant", id, "hello"] + action.dropFirst())
                    #expect(run.code == 2 && run.error.contains("knows version v9"), "\(action): \(run.error)")
                }
                #expect(try await harness.operatorStores.releases.history(tenantID: id, miniAppID: "hello", limit: 10).isEmpty)
                // A version the policy names needs no platform: v2 withdrawn, then withdrawn again.
                #expect(await Self.ctl(harness, ["release", "withdraw", "--tenant", id, "hello", "--version", "v2"]).code == 0)
                fake.set { $0.metadata["hello/v2/"] = nil }
                #expect(await Self.ctl(harness, ["release", "withdraw", "--tenant", id, "hello", "--version", "v2"]).code == 0)
                #expect(await Self.ctl(harness, ["release", "show", "--tenant", "no-such", "hello"]).code == 2)

                // Tenant demo without a platform is served from its catalog folder: the folder decides.
                let demo = await Self.ctl(harness, ["release", "set", "--tenant", "demo", "hello", "--candidate", "v9"])
                #expect(demo.code == 2 && demo.error.contains("knows version v9"), "\(demo.error)")
                #expect(await Self.ctl(harness, ["release", "set", "--tenant", "demo", "hello", "--candidate", "v2"]).code == 0)

                // A platform that cannot be reached only warns.
                let dark = uniqueTenantID("relctl")
                var tenant = GatewayHarness.tenant(dark, on: fake)
                tenant.platform.baseURL = "http://127.0.0.1:9"
                try await harness.createTenant(tenant, signIn: false)
                let warned = await Self.ctl(harness, ["release", "set", "--tenant", dark, "hello", "--candidate", "v2"])
                #expect(warned.code == 0 && warned.error.contains("warning: could not ask the platform"))
            }
        }
    }

    @Test("set with an allow list serves the candidate; pause, resume, rollback, withdraw reach the gateway; history names who and why")
    func lifecycle() async throws {
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)
            try await GatewayHarness.withGateway { harness, _, port in
                let id = uniqueTenantID("relctl")
                let (token, user) = try await StagedReleaseEndpointTests.signedIn(harness, GatewayHarness.tenant(id, on: fake))
                let url = "http://127.0.0.1:\(port)/t/\(id)/v1/miniapps/hello"
                @Sendable func served() async throws -> String? {
                    StagedReleaseEndpointTests.versionID(try await StagedReleaseEndpointTests.get(url, token: token).json)
                }

                let set = await Self.ctl(
                    harness,
                    [
                        "release", "set", "--tenant", id, "hello", "--candidate", "v2", "--percent", "12.5",
                        "--step", "50@+1d", "--allow-users-file", "-", "--halt-error-ratio", "2", "--reason",
                        "first cohort", "--json",
                    ], stdin: "# QA\n\(user)\n")
                #expect(set.code == 0, "\(set.error)")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(set.output.utf8)) as? [String: Any])
                let candidate = try #require(document["candidate"] as? [String: Any])
                #expect(candidate["version"] as? String == "v2" && candidate["percent"] as? String == "12.5")
                #expect(candidate["allowUsers"] as? [String] == [user])
                #expect((document["autoHalt"] as? [String: Any])?["minOpens"] as? Int == 200)
                #expect(try await eventually(within: .seconds(5)) { try await served() == "v2" })

                let list = await Self.ctl(harness, ["release", "list", "--tenant", id])
                #expect(list.output.hasPrefix("MINIAPP") && list.output.contains("12.5%"))
                #expect(await Self.ctl(harness, ["release", "pause", "--tenant", id, "hello"]).output.contains("(paused)"))
                let shown = await Self.ctl(harness, ["release", "show", "--tenant", id, "hello"])
                #expect(shown.output.contains("candidate:  v2, paused, 12.5% now"))
                #expect(await Self.ctl(harness, ["release", "resume", "--tenant", id, "hello"]).code == 0)

                let rollback = await Self.ctl(
                    harness, ["release", "rollback", "--tenant", id, "hello", "--to", "v1", "--reason", "bad build"])
                #expect(rollback.code == 0 && rollback.output.contains("stable v1"))
                #expect(try await eventually(within: .seconds(5)) { try await served() == "v1" })

                let withdraw = await Self.ctl(
                    harness, ["release", "withdraw", "--tenant", id, "hello", "--version", "v2", "--use-instead", "v1"])
                #expect(withdraw.code == 0, "\(withdraw.error)")
                #expect(
                    try await eventually(within: .seconds(5)) {
                        try await StagedReleaseEndpointTests.get("\(url)/versions/v2/manifest", token: token).status == 410
                    })

                let history = await Self.ctl(harness, ["release", "history", "--tenant", id, "hello", "--json"])
                let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.output.utf8)) as? [[String: Any]])
                #expect(entries.compactMap { $0["action"] as? String } == ["withdraw", "rollback", "resume", "pause", "set"])
                #expect(entries.allSatisfy { $0["actor"] as? String == "ops-ann" })
                #expect(entries[1]["reason"] as? String == "bad build" && entries[4]["reason"] as? String == "first cohort")
                let table = await Self.ctl(harness, ["release", "history", "--tenant", id, "hello"])
                #expect(table.output.hasPrefix("AT") && table.output.contains("bad build"))
            }
        }
    }
}
