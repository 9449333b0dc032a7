import Foundation
import GatewayAPI
import GatewayCLI
import GatewayCore
import Testing

@Suite("Host-app version policy and feature flags end to end (generated client, real sockets)")
struct HostAppEndToEndTests {
    typealias Update = Components.Schemas.HostAppVersionPolicy.UpdatePayload

    /// Runs gatewayctl in-process against the harness's database, as an operator would.
    static func gatewayctl(_ harness: GatewayHarness, _ arguments: [String]) async -> (code: Int32, error: String) {
        let output = CapturedOutput()
        let environment = [
            "GATEWAY_DATABASE_PATH": harness.configuration.databasePath,
            "GATEWAY_MASTER_KEY": GatewayHarness.masterKeyBase64,
            "USER": "e2e",
        ]
        let code = await Gatewayctl.run(
            arguments: arguments, environment: environment, standardInput: { Data() }, output: output)
        return (code, output.error)
    }

    @Test(
        "tenant create and update --wait-for return once the running gateway serves the change; an unreachable gateway fails after --wait-timeout with the change written"
    )
    func waitForTheGateway() async throws {
        try await GatewayHarness.withGateway { harness, client, port in
            let id = uniqueTenantID("wait")
            let base = "http://127.0.0.1:\(port)"
            let created = await Self.gatewayctl(
                harness, ["tenant", "create", id, "--display-name", "Wait", "--wait-for", base])
            #expect(created.code == 0, "\(created.error)")
            #expect(created.error.contains("serves tenant \(id) at configVersion 1"), "\(created.error)")
            #expect(try await client.getHostConfig(path: .init(tenant: id)).ok.body.json.configVersion == 1)
            let updated = await Self.gatewayctl(
                harness, ["tenant", "update", id, "--flag", "beta=true", "--wait-for", base + "/"])
            #expect(updated.code == 0, "\(updated.error)")
            let served = try await client.getHostConfig(path: .init(tenant: id)).ok.body.json
            #expect(served.configVersion == 2 && served.featureFlags.additionalProperties == ["beta": true])

            let nobody = "http://127.0.0.1:\(try freeTCPPort())"
            let started = ContinuousClock.now
            let unreachable = await Self.gatewayctl(
                harness, ["tenant", "update", id, "--flag", "beta=false", "--wait-for", nobody, "--wait-timeout", "1"])
            #expect(unreachable.code == 1)
            #expect(
                unreachable.error.contains("did not serve configVersion 3 of tenant \(id) within 1 s (cannot reach it"),
                "\(unreachable.error)")
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(try await harness.operatorStore().tenant(id: id)?.configVersion == 3)
            #expect(
                await Self.gatewayctl(
                    harness, ["tenant", "update", id, "--flag", "beta=true", "--wait-for", "127.0.0.1:8080"]
                ).code == 2)
        }
    }

    @Test("a gatewayctl flag change is served within 2 s with a new ETag")
    func flagChangeIsLiveWithANewETag() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("flags")
            try await harness.createTenant(Tenant(id: id, displayName: "Flags"), signIn: false)
            let first = try await client.getHostConfig(path: .init(tenant: id)).ok
            let initial = try first.body.json
            #expect(initial.featureFlags.additionalProperties.isEmpty)
            #expect(
                initial.hostApp.minimumVersion == nil && initial.hostApp.latestVersion == nil
                    && initial.hostApp.updateURL == nil)
            #expect(initial.hostApp.update == nil)

            let set = await Self.gatewayctl(
                harness, ["tenant", "update", id, "--flag", "beta=true", "--flag", "dark-mode=false"])
            #expect(set.code == 0, "\(set.error)")
            let served = try await eventually {
                try await client.getHostConfig(path: .init(tenant: id)).ok.body.json.featureFlags.additionalProperties
                    == ["beta": true, "dark-mode": false]
            }
            #expect(served)
            let second = try await client.getHostConfig(path: .init(tenant: id)).ok
            #expect(second.headers.eTag != first.headers.eTag)
            #expect(try second.body.json.configVersion == initial.configVersion + 1)
            // The old ETag no longer matches; the new one does.
            #expect(
                try await client.getHostConfig(path: .init(tenant: id), headers: .init(ifNoneMatch: first.headers.eTag))
                    .ok.headers.eTag == second.headers.eTag)
            _ = try await client.getHostConfig(
                path: .init(tenant: id), headers: .init(ifNoneMatch: second.headers.eTag)
            ).notModified

            let flip = await Self.gatewayctl(
                harness, ["tenant", "update", id, "--flag", "beta=false", "--unset-flag", "dark-mode"])
            #expect(flip.code == 0, "\(flip.error)")
            let flipped = try await eventually {
                try await client.getHostConfig(path: .init(tenant: id)).ok.body.json.featureFlags.additionalProperties
                    == ["beta": false]
            }
            #expect(flipped)
            #expect(try await client.getHostConfig(path: .init(tenant: id)).ok.headers.eTag != second.headers.eTag)

            // Refused input writes nothing, so nothing the gateway serves changes.
            let version = try await harness.operatorStore().tenant(id: id)?.configVersion
            let bad = await Self.gatewayctl(harness, ["tenant", "update", id, "--flag", "Beta=true"])
            #expect(bad.code == 2)
            #expect(try await harness.operatorStore().tenant(id: id)?.configVersion == version)
            #expect(
                try await client.getHostConfig(path: .init(tenant: id)).ok.body.json.featureFlags.additionalProperties
                    == ["beta": false])
        }
    }

    @Test("hostAppVersion gives the verdict none/recommended/required, each with its own ETag")
    func verdicts() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("hostver")
            let policy = HostAppVersionPolicy(
                minimumVersion: "2.1", latestVersion: "2.4.0", updateURL: "https://apps.example.com/acme")
            try await harness.createTenant(Tenant(id: id, displayName: "Versions", hostApp: policy), signIn: false)

            func fetch(_ version: String?, ifNoneMatch: String? = nil) async throws -> Operations.GetHostConfig.Output {
                try await client.getHostConfig(
                    path: .init(tenant: id), query: .init(hostAppVersion: version),
                    headers: .init(ifNoneMatch: ifNoneMatch))
            }
            let plain = try await fetch(nil).ok
            let plainBody = try plain.body.json
            #expect(plainBody.hostApp.minimumVersion == "2.1")
            #expect(plainBody.hostApp.latestVersion == "2.4.0")
            #expect(plainBody.hostApp.updateURL == "https://apps.example.com/acme")
            #expect(plainBody.hostApp.update == nil)

            let cases: [(String, Update)] = [
                ("1.9", .required), ("2.0.999999", .required), ("2.1", .recommended), ("2.1.0", .recommended),
                ("2.3.9", .recommended), ("2.4", Update.none), ("2.4.0.0", Update.none), ("2.10", Update.none),
                ("10", Update.none),
            ]
            var tags: [Update: String] = [:]
            for (version, expected) in cases {
                let answer = try await fetch(version).ok
                #expect(try answer.body.json.hostApp.update == expected, "\(version)")
                if let known = tags[expected] {
                    #expect(answer.headers.eTag == known, "\(version): same verdict, same ETag")
                }
                tags[expected] = answer.headers.eTag
            }
            #expect(Set(tags.values).count == 3)
            #expect(!tags.values.contains(plain.headers.eTag))

            // 304 only for the ETag of the same verdict.
            let required = try #require(tags[.required])
            _ = try await fetch("1.0", ifNoneMatch: required).notModified
            #expect(try await fetch("2.5", ifNoneMatch: required).ok.body.json.hostApp.update == Update.none)
            #expect(try await fetch(nil, ifNoneMatch: required).ok.headers.eTag == plain.headers.eTag)

            // Raising the latest version turns 2.4 into "recommended", with a new ETag.
            try await harness.updateTenant(id) { $0.hostApp.latestVersion = "2.10" }
            let raised = try await fetch("2.4", ifNoneMatch: tags[Update.none]).ok
            #expect(try raised.body.json.hostApp.update == .recommended)
            #expect(raised.headers.eTag != tags[.recommended])
        }
    }

    @Test("a malformed hostAppVersion is 400 invalid_request")
    func badVersion() async throws {
        try await GatewayHarness.withGateway { harness, client, _ in
            let id = uniqueTenantID("badver")
            try await harness.createTenant(Tenant(id: id, displayName: "Bad"), signIn: false)
            for bad in ["2.x", "v2", "1.2.3.4.5", "1234567", "2.", ".2", "2..1", "-1", "2 1"] {
                guard
                    case .badRequest(let answer) = try await client.getHostConfig(
                        path: .init(tenant: id), query: .init(hostAppVersion: bad))
                else {
                    Issue.record("expected 400 for \(bad)")
                    continue
                }
                let problem = try answer.body.applicationProblemJson
                #expect(problem.code == "invalid_request")
                #expect(problem.status == 400)
                #expect(problem.detail?.contains("hostAppVersion") == true)
            }
        }
    }

    @Test("/home carries the host-app policy and feature flags (without a verdict)")
    func homeCarriesTheNewFields() async throws {
        try await FakePlatform.with { fake in
            try await GatewayHarness.withGateway { harness, client, _ in
                let id = uniqueTenantID("homeflags")
                var tenant = GatewayHarness.tenant(id, on: fake)
                tenant.hostApp = HostAppVersionPolicy(minimumVersion: "1.0", latestVersion: "1.5")
                tenant.featureFlags = ["beta": true]
                try await harness.createTenant(tenant)
                let home = try await client.getHome(path: .init(tenant: id)).ok.body.json
                #expect(home.hostConfig.featureFlags.additionalProperties == ["beta": true])
                #expect(home.hostConfig.hostApp.minimumVersion == "1.0")
                #expect(home.hostConfig.hostApp.latestVersion == "1.5")
                #expect(home.hostConfig.hostApp.update == nil)
            }
        }
    }
}
