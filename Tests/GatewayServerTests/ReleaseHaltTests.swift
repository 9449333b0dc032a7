import Foundation
import GatewayAPI
import GatewayCore
import Testing

/// The automatic halt (issue 29), counted only from what the gateway can attribute (issue 47):
/// an event counts for a version only when the gateway served that version to that user, once
/// per user and window, and only once each side has the rule's distinct users.
@Suite("Release automatic halt: counted from attributable analytics, shared, recorded")
struct ReleaseHaltTests {
    typealias Event = Components.Schemas.AnalyticsEvent

    /// `opens` opens and `failures` failures of `version` in one batch, with `token`.
    static func report(
        _ base: String, token: String, version: String, opens: Int = 1, failures: Int = 0, crashes: Int = 0
    ) async throws {
        var events: [String] = []
        events += Array(repeating: #"{"name": "mini_app_open", "miniAppId": "hello", "versionId": "\#(version)"}"#, count: opens)
        events += Array(repeating: #"{"miniAppId": "hello", "versionId": "\#(version)", "eventType": "error"}"#, count: failures)
        events += Array(repeating: #"{"name": "mini_app_crash", "miniAppId": "hello", "versionId": "\#(version)"}"#, count: crashes)
        let reply = try await NotificationEndpointTests.call(
            .POST, "\(base)/analytics", token: token, json: #"{"events": [\#(events.joined(separator: ","))]}"#)
        #expect(reply.status == 200 && reply.json["accepted"] == .number(Double(events.count)), "\(reply.json)")
    }

    /// The version `hello`'s info answer names for `token`'s user (the gateway records what it served).
    static func served(_ base: String, token: String) async throws -> String? {
        StagedReleaseEndpointTests.versionID(try await StagedReleaseEndpointTests.get("\(base)/miniapps/hello", token: token).json)
    }

    static func state(_ harness: GatewayHarness, _ id: String) async throws -> RolloutState? {
        try await harness.operatorStores.releases.policy(tenantID: id, miniAppID: "hello")?.candidate?.state
    }

    @Test("a deny-listed user's forged events leave the rollout active; 50 users served the candidate and failing halt it")
    func onlyAttributableEventsHalt() async throws {
        let clock = ManualClock(Date())
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)
            try await GatewayHarness.withGateway(clock: clock.clock) { harness, client, port in
                let id = uniqueTenantID("relhalt")
                let (attacker, attackerID) = try await StagedReleaseEndpointTests.signedIn(
                    harness, GatewayHarness.tenant(id, on: fake))
                let base = "http://127.0.0.1:\(port)/t/\(id)/v1"
                let cohort = try await harness.mintedUsers(tenant: id, port: port, prefix: "cand", count: 50)
                let others = try await harness.mintedUsers(tenant: id, port: port, prefix: "stab", count: 50)
                try await StagedReleaseEndpointTests.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.stable = "v1"
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent(basisPoints: 0)!,
                            allowUsers: Set(cohort.map(\.subject)), denyUsers: [attackerID])
                        policy.autoHalt = AutoHaltRule(errorRatio: 2, minOpens: 10)
                    }
                }
                #expect(try await harness.operatorStores.releases.policy(tenantID: id, miniAppID: "hello")?
                    .autoHalt?.minUsers == 50, "the default minimum of users")

                // The attacker is only ever served v1; even fetching v2's manifest by its id does not
                // make v2 theirs. Their 60 events: 20 opens of v1, 20 opens and 20 crashes of v2.
                #expect(try await Self.served(base, token: attacker) == "v1")
                let manifest = try await StagedReleaseEndpointTests.get(
                    "\(base)/miniapps/hello/versions/v2/manifest", token: attacker)
                #expect(manifest.status == 200)
                try await Self.report(base, token: attacker, version: "v1", opens: 20, failures: 0)
                try await Self.report(base, token: attacker, version: "v2", opens: 20, crashes: 20)
                #expect(try await Self.state(harness, id) == .active, "forged events halted the rollout")

                // The reverse (failures of stable to hide a bad candidate) counts once per user too.
                try await Self.report(base, token: attacker, version: "v1", opens: 0, failures: 50)

                // 50 users on stable open it, one fails; 49 candidate users open v2 and fail: under
                // the minimum of users, nothing happens however they fail.
                for user in others {
                    #expect(try await Self.served(base, token: user.token) == "v1")
                    try await Self.report(base, token: user.token, version: "v1")
                }
                try await Self.report(base, token: others[0].token, version: "v1", opens: 0, failures: 1)
                for user in cohort.dropLast() {
                    #expect(try await Self.served(base, token: user.token) == "v2")
                    try await Self.report(base, token: user.token, version: "v2", opens: 3, failures: 5)
                }
                #expect(try await Self.state(harness, id) == .active, "49 users are under the minimum of 50")

                // The 50th user served the candidate, failing: halted.
                let last = try #require(cohort.last)
                #expect(try await Self.served(base, token: last.token) == "v2")
                try await Self.report(base, token: last.token, version: "v2", opens: 1, failures: 1)
                #expect(try await Self.state(harness, id) == .halted)
                let entry = try #require(try await harness.operatorStores.releases.history(
                    tenantID: id, miniAppID: "hello", limit: 1).first)
                #expect(entry.action == .halt && entry.actor == "gateway")
                // One open and one failure per user: the attacker's flood counted once, on stable.
                #expect(
                    entry.reason?.contains("candidate v2 failed on 100.0% of 50 opens, stable on 3.9% of 51") == true,
                    "\(entry.reason ?? "")")
                #expect(entry.reason?.contains("50 and 51 users") == true, "\(entry.reason ?? "")")
                #expect(
                    try await eventually(within: .seconds(5)) { try await Self.served(base, token: last.token) == "v1" },
                    "the cohort returns to stable")
                let metrics = try await StagedReleaseEndpointTests.text("http://127.0.0.1:\(port)/metrics")
                #expect(metrics.contains("gateway_release_halts_total{tenant=\"\(id)\",mini_app=\"hello\"} 1"))
                _ = client
            }
        }
    }

    @Test("below the ratio, or after the window slid past the failures, nothing halts")
    func belowTheRatioNothingHappens() async throws {
        let rule = AutoHaltRule(errorRatio: 2, minOpens: 200, minUsers: 200)
        typealias Tally = ReleaseHealth.Tally
        func tally(_ opens: Double, _ failures: Double) -> Tally { Tally(opens: opens, failures: failures, users: opens) }
        #expect(!ReleaseHealth.condemns(candidate: tally(500, 15), stable: tally(500, 10), rule: rule))
        #expect(ReleaseHealth.condemns(candidate: tally(500, 25), stable: tally(500, 10), rule: rule))
        #expect(!ReleaseHealth.condemns(candidate: tally(199, 199), stable: tally(1, 0), rule: rule))
        #expect(!ReleaseHealth.condemns(candidate: tally(300, 0), stable: tally(300, 0), rule: rule))
        #expect(
            !ReleaseHealth.condemns(candidate: tally(300, 90), stable: tally(150, 0), rule: rule),
            "too few stable opens to compare with")
        #expect(!ReleaseHealth.condemns(candidate: tally(300, 1), stable: tally(300, 0), rule: rule))
        #expect(ReleaseHealth.condemns(candidate: tally(300, 3), stable: tally(300, 0), rule: rule))
        #expect(
            !ReleaseHealth.condemns(
                candidate: Tally(opens: 300, failures: 300, users: 199), stable: tally(300, 0), rule: rule),
            "too few candidate users")
        #expect(
            !ReleaseHealth.condemns(
                candidate: tally(300, 300), stable: Tally(opens: 300, failures: 0, users: 199), rule: rule),
            "too few stable users")

        let clock = ManualClock(Date())
        try await FakePlatform.with { fake in
            StagedReleaseEndpointTests.seed(fake)
            try await GatewayHarness.withGateway(clock: clock.clock) { harness, _, port in
                let id = uniqueTenantID("relhalt")
                try await harness.createTenant(GatewayHarness.tenant(id, on: fake))
                let base = "http://127.0.0.1:\(port)/t/\(id)/v1"
                let cohort = try await harness.mintedUsers(tenant: id, port: port, prefix: "cand", count: 4)
                let others = try await harness.mintedUsers(tenant: id, port: port, prefix: "stab", count: 4)
                try await StagedReleaseEndpointTests.release(harness, tenant: id) { service, target in
                    try await service.set(target) { policy in
                        policy.candidate = ReleaseCandidate(
                            version: "v2", percent: RolloutPercent(basisPoints: 0)!,
                            allowUsers: Set(cohort.map(\.subject)))
                        policy.autoHalt = AutoHaltRule(errorRatio: 2, minOpens: 4, minUsers: 4)
                    }
                }
                // 1.5x stable's rate (3 of 4 users against 2 of 4), over both minimums: no halt.
                for (index, user) in others.enumerated() {
                    #expect(try await Self.served(base, token: user.token) == "v1")
                    try await Self.report(base, token: user.token, version: "v1", failures: index < 2 ? 1 : 0)
                }
                for (index, user) in cohort.enumerated() {
                    #expect(try await Self.served(base, token: user.token) == "v2")
                    try await Self.report(base, token: user.token, version: "v2", failures: index < 3 ? 1 : 0)
                }
                #expect(try await Self.state(harness, id) == .active)
                // Two windows later (fresh tokens: the old ones expired) those failures no longer
                // count: 1 of 4 users failing on each side halts nothing.
                clock.advance(by: .seconds(1_200))
                let stable = try await harness.mintedUsers(tenant: id, port: port, prefix: "stab", count: 4, again: true)
                let candidate = try await harness.mintedUsers(tenant: id, port: port, prefix: "cand", count: 4, again: true)
                for (index, user) in stable.enumerated() {
                    _ = try await Self.served(base, token: user.token)
                    try await Self.report(base, token: user.token, version: "v1", failures: index == 0 ? 1 : 0)
                }
                for (index, user) in candidate.enumerated() {
                    _ = try await Self.served(base, token: user.token)
                    try await Self.report(base, token: user.token, version: "v2", failures: index == 0 ? 1 : 0)
                }
                #expect(try await Self.state(harness, id) == .active)
            }
        }
    }
}
