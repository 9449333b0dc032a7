import Foundation
import Testing
@testable import GatewayCore

/// The release actions on the stores of both engines (issue 29): each leaves a history
/// entry, refuses what the rules refuse and writes nothing then, and pauses on a moved clock.
@Suite("Release actions")
struct ReleaseServiceTests {
    static func target(reason: String? = nil) -> ReleaseService.Target {
        ReleaseService.Target(tenantID: "acme", miniAppID: "app1", actor: "ops", reason: reason)
    }

    static func withService(
        _ backend: StoreBackend, _ body: (ReleaseService, any ReleasePolicyStore, ManualClock) async throws -> Void
    ) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let clock = ManualClock()
        try await body(ReleaseService(store: database.stores.releases, clock: clock.wall), database.stores.releases, clock)
    }

    @Test(arguments: StoreBackend.available) func lifecycle(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, store, clock in
            let start = StoreClock.date(clock.now)
            try await service.set(Self.target(reason: "1 % first")) {
                $0.stable = "1.0"
                $0.candidate = ReleaseCandidate(
                    version: "1.1", percent: RolloutPercent("1")!,
                    steps: [RolloutStep(percent: RolloutPercent("10")!, at: start.addingTimeInterval(3_600))])
            }
            // An hour and a bit later the step has come; pausing freezes the share at 10 %.
            clock.advance(.seconds(3_700))
            let paused = try await service.pause(Self.target())
            #expect(paused.candidate?.state == .paused && paused.candidate?.percent == RolloutPercent("10"))
            #expect(paused.candidate?.steps == [])
            let resumed = try await service.resume(Self.target())
            #expect(resumed.candidate?.state == .active)
            let halted = try await service.halt(Self.target(reason: "error rate 5.0x stable over 240 opens"))
            #expect(halted.candidate?.state == .halted)
            let promoted = try await service.promote(Self.target())
            #expect(promoted.stable == "1.1" && promoted.candidate == nil)
            let rolledBack = try await service.rollback(Self.target(reason: "crash on launch"), to: "1.0")
            #expect(rolledBack.stable == "1.0")
            let withdrawn = try await service.withdraw(Self.target(), version: "1.1", useInstead: "1.0")
            #expect(withdrawn.withdrawn == [WithdrawnVersion(version: "1.1", useInstead: "1.0")])
            let history = try await store.history(tenantID: "acme", miniAppID: "app1", limit: 100)
            #expect(history.map(\.action) == [.withdraw, .rollback, .promote, .halt, .resume, .pause, .set])
            #expect(history.map(\.reason)[1...3] == ["crash on launch", nil, "error rate 5.0x stable over 240 opens"])
            #expect(history.last?.summary == "stable 1.0, candidate 1.1 at 1% then 10% (active)")
            #expect(history.allSatisfy { $0.actor == "ops" })
            // Rolling back to a withdrawn version is refused.
            await #expect(throws: ReleasePolicyError.invalid("version 1.1 was withdrawn")) {
                try await service.rollback(Self.target(), to: "1.1")
            }
        }
    }

    /// Issue 47: "paused: steps wait" — a step that fell due while paused was dropped on resume
    /// (measured: still 80 % after resume, the step gone). Steps now wait, and apply in order on
    /// resume; later ones keep their time; other changes to the paused policy keep them.
    @Test(arguments: StoreBackend.available) func stepsWaitWhilePaused(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, _, clock in
            let start = StoreClock.date(clock.now)
            let steps = [(20, 600), (50, 1_200), (100, 7_200)].map {
                RolloutStep(percent: RolloutPercent("\($0.0)")!, at: start.addingTimeInterval(TimeInterval($0.1)))
            }
            try await service.set(Self.target()) {
                $0.candidate = ReleaseCandidate(version: "1.1", percent: RolloutPercent("5")!, steps: steps)
            }
            let paused = try await service.pause(Self.target())
            #expect(paused.candidate?.percent == RolloutPercent("5") && paused.candidate?.steps == steps)
            clock.advance(.seconds(1_800))  // 20 % and 50 % fell due while paused
            let changed = try await service.set(Self.target()) { $0.candidate?.allowUsers = ["qa-1"] }
            #expect(changed.candidate?.steps == steps && changed.candidate?.share(at: StoreClock.date(clock.now)) == RolloutPercent("5"))
            let resumed = try await service.resume(Self.target())
            #expect(resumed.candidate?.state == .active)
            #expect(resumed.candidate?.percent == RolloutPercent("50"), "the due steps applied, the last one wins")
            #expect(resumed.candidate?.steps == [steps[2]], "the later step keeps its time")
            clock.advance(.seconds(6_000))
            #expect(resumed.candidate?.share(at: StoreClock.date(clock.now)) == RolloutPercent("100"))
        }
    }

    @Test(arguments: StoreBackend.available) func refusalsWriteNothing(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, store, _ in
            await #expect(throws: ReleasePolicyError.noPolicy(miniAppID: "app1")) {
                try await service.pause(Self.target())
            }
            await #expect(throws: ReleasePolicyError.self) {
                try await service.set(Self.target()) {
                    $0.stable = "1.0"
                    $0.candidate = ReleaseCandidate(version: "1.0", percent: .all)
                }
            }
            #expect(try await store.policy(tenantID: "acme", miniAppID: "app1") == nil)
            try await service.set(Self.target()) { $0.stable = "1.0" }
            await #expect(throws: ReleasePolicyError.noCandidate(miniAppID: "app1", states: ["active", "paused"])) {
                try await service.halt(Self.target())
            }
            #expect(try await store.history(tenantID: "acme", miniAppID: "app1", limit: 10).count == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func racingActionsAreBothApplied(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, store, _ in
            try await service.set(Self.target()) {
                $0.stable = "1.0"
                $0.candidate = ReleaseCandidate(version: "1.1", percent: RolloutPercent("5")!)
            }
            // A withdraw of an old version and a halt at once: neither overwrites the other.
            async let withdraw = service.withdraw(Self.target(), version: "0.9", useInstead: "1.0")
            async let halt = service.halt(Self.target())
            _ = try await (withdraw, halt)
            let final = try #require(try await store.policy(tenantID: "acme", miniAppID: "app1"))
            #expect(final.candidate?.state == .halted && final.isWithdrawn("0.9") && final.revision == 3)
        }
    }

    /// A step whose time passed is part of the share, not a rule broken: an action on a
    /// policy whose rollout moved on (the automatic halt at 10 %) must not be refused.
    @Test(arguments: StoreBackend.available) func actionsAfterAStepPassed(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, _, clock in
            let start = StoreClock.date(clock.now)
            try await service.set(Self.target()) {
                $0.stable = "1.0"
                $0.candidate = ReleaseCandidate(
                    version: "1.1", percent: RolloutPercent("1")!,
                    steps: [
                        RolloutStep(percent: RolloutPercent("10")!, at: start.addingTimeInterval(60)),
                        RolloutStep(percent: RolloutPercent("50")!, at: start.addingTimeInterval(7_200)),
                    ])
            }
            clock.advance(.seconds(120))
            let withdrawn = try await service.withdraw(Self.target(), version: "0.9", useInstead: "1.0")
            #expect(withdrawn.candidate?.share(at: StoreClock.date(clock.now)) == RolloutPercent("10"))
            #expect(withdrawn.candidate?.steps.map(\.percent) == [RolloutPercent("50")!])
            let halted = try await service.halt(Self.target())
            #expect(halted.candidate?.state == .halted && halted.candidate?.percent == RolloutPercent("10"))
        }
    }

    /// Erasing a user takes them off every list that names them, and leaves other policies.
    @Test(arguments: StoreBackend.available) func forgetErasedUser(backend: StoreBackend) async throws {
        try await Self.withService(backend) { service, store, _ in
            for (app, allow, deny) in [("app1", ["u1", "u2"], []), ("app2", [], ["u1"]), ("app3", ["u2"], [])] {
                try await service.set(.init(tenantID: "acme", miniAppID: app, actor: "ops")) {
                    $0.stable = "1.0"
                    $0.candidate = ReleaseCandidate(
                        version: "1.1", percent: RolloutPercent("5")!, allowUsers: Set(allow), denyUsers: Set(deny))
                }
            }
            let changed = try await service.forget(userID: "u1", tenantID: "acme", actor: .local(user: "ops"))
            #expect(changed.sorted() == ["app1", "app2"])
            let policies = try await store.policies(tenantID: "acme")
            #expect(policies.allSatisfy { $0.candidate?.names("u1") == false })
            #expect(policies.first { $0.miniAppID == "app1" }?.candidate?.allowUsers == ["u2"])
            #expect(policies.first { $0.miniAppID == "app3" }?.revision == 1)
            let history = try await store.history(tenantID: "acme", miniAppID: "app2", limit: 10)
            #expect(history.first?.action == .forget && history.first?.summary.contains("u1") == false)
            #expect(try await service.forget(userID: "u1", tenantID: "acme", actor: .local(user: "ops")).isEmpty)
        }
    }
}
