import Foundation
import Testing
@testable import GatewayCore

/// Who gets a mini app's candidate version (issue 29): sticky, deterministic shares, lists,
/// segments, steps on a moved clock, halts, pauses and withdrawals.
@Suite("Release assignment")
struct ReleaseAssignmentTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let users = (0..<10_000).map { "user-\($0)" }

    static func policy(_ percent: String, _ configure: (inout ReleaseCandidate) -> Void = { _ in }) -> ReleasePolicy {
        var candidate = ReleaseCandidate(version: "1.1", percent: RolloutPercent(percent)!)
        configure(&candidate)
        return ReleasePolicy(tenantID: "acme", miniAppID: "app1", stable: "1.0", candidate: candidate)
    }

    static func cohort(_ policy: ReleasePolicy, at time: Date = now) -> Set<String> {
        Set(users.filter { policy.version(for: ReleaseAudience(userID: $0), at: time) == "1.1" })
    }

    @Test("10,000 users at 10 %: between 9 % and 11 % get the candidate; at 50 % every one of them is still in")
    func shareIsStickyAsItGrows() {
        let ten = Self.cohort(Self.policy("10"))
        #expect((900...1_100).contains(ten.count), "\(ten.count) of 10,000")
        let fifty = Self.cohort(Self.policy("50"))
        #expect((4_800...5_200).contains(fifty.count), "\(fifty.count) of 10,000")
        #expect(ten.isSubset(of: fifty))
        #expect(Self.cohort(Self.policy("0")).isEmpty && Self.cohort(Self.policy("100")).count == 10_000)
        // Another candidate version draws another cohort (not the same users first every time).
        var next = Self.policy("10")
        next.candidate?.version = "1.2"
        let other = Set(Self.users.filter { next.offersCandidate(to: ReleaseAudience(userID: $0), at: Self.now) })
        #expect(other.intersection(ten).count < 300)
    }

    @Test("the bucket is pinned: the same user lands in the same place on every replica and every build")
    func bucketIsPinned() {
        let bucket = RolloutBucket.of(tenantID: "acme", miniAppID: "app1", version: "1.1", userID: "user-1")
        #expect(bucket == RolloutBucket.of(tenantID: "acme", miniAppID: "app1", version: "1.1", userID: "user-1"))
        #expect(bucket == 4_990)
        // Part boundaries count: ("acme", "app1") is not ("acm", "eapp1").
        #expect(bucket != RolloutBucket.of(tenantID: "acm", miniAppID: "eapp1", version: "1.1", userID: "user-1"))
    }

    @Test("an allow-listed user always gets the candidate and a deny-listed user never does; anonymous requests get stable")
    func listsAndAnonymous() {
        let denied = Self.users.first { Self.policy("100").version(for: ReleaseAudience(userID: $0), at: Self.now) == "1.1" }!
        let policy = Self.policy("0") { $0.allowUsers = ["qa-1"]; $0.denyUsers = [denied] }
        #expect(policy.version(for: ReleaseAudience(userID: "qa-1"), at: Self.now) == "1.1")
        var everyone = policy
        everyone.candidate?.percent = .all
        #expect(everyone.version(for: ReleaseAudience(userID: denied), at: Self.now) == "1.0")
        #expect(everyone.version(for: ReleaseAudience(userID: nil), at: Self.now) == "1.0")
    }

    @Test("a host-version or platform segment keeps the candidate from the others, even at 100 %")
    func segments() {
        let policy = Self.policy("100") {
            $0.segment = ReleaseSegment(hostVersions: HostVersionRange(">=2.4 <3"), platforms: [.ios], locales: ["ja"])
        }
        func version(_ host: String?, _ platform: ClientPlatform?, _ locale: String?) -> String? {
            policy.version(
                for: ReleaseAudience(
                    userID: "user-1", hostAppVersion: host.flatMap { HostAppVersion($0) }, platform: platform,
                    locale: locale), at: Self.now)
        }
        #expect(version("2.4", .ios, "ja-JP") == "1.1")
        #expect(version("2.10.1", .ios, "ja") == "1.1")
        #expect(version("3.0", .ios, "ja") == "1.0")
        #expect(version("2.3.9", .ios, "ja") == "1.0")
        #expect(version("2.5", .android, "ja") == "1.0")
        #expect(version("2.5", .ios, "en-US") == "1.0")
        #expect(version(nil, .ios, "ja") == "1.0")
        #expect(version("2.5", nil, "ja") == "1.0")
    }

    @Test("steps raise the share at their times (the clock is moved, nothing sleeps); pause freezes it, a halt returns everyone to stable")
    func stepsPauseHalt() {
        let policy = Self.policy("1") {
            $0.steps = [
                RolloutStep(percent: RolloutPercent("10")!, at: Self.now.addingTimeInterval(3_600)),
                RolloutStep(percent: RolloutPercent("50")!, at: Self.now.addingTimeInterval(86_400)),
            ]
        }
        let shares = [0.0, 3_599, 3_600, 86_399, 86_400].map { offset in
            Self.cohort(policy, at: Self.now.addingTimeInterval(offset)).count
        }
        #expect((50...150).contains(shares[0]) && shares[0] == shares[1])
        #expect((900...1_100).contains(shares[2]) && shares[2] == shares[3])
        #expect((4_800...5_200).contains(shares[4]))

        var paused = policy
        paused.candidate?.state = .paused
        #expect(Self.cohort(paused, at: Self.now.addingTimeInterval(86_400)).count == shares[0])
        var halted = policy
        halted.candidate?.state = .halted
        halted.candidate?.allowUsers = ["qa-1"]
        #expect(Self.cohort(halted, at: Self.now.addingTimeInterval(86_400)).isEmpty)
        #expect(halted.version(for: ReleaseAudience(userID: "qa-1"), at: Self.now) == "1.0")
    }

    @Test("a withdrawn candidate is offered to no one; a withdrawn stable gives way to the version named instead")
    func withdrawn() {
        var policy = Self.policy("100")
        policy.withdrawn = [WithdrawnVersion(version: "1.1", useInstead: "1.0")]
        #expect(Self.cohort(policy).isEmpty)
        policy.withdrawn = [WithdrawnVersion(version: "1.0", useInstead: "0.9")]
        policy.candidate = nil
        #expect(policy.version(for: ReleaseAudience(userID: "user-1"), at: Self.now) == "0.9")
        policy.withdrawn.append(WithdrawnVersion(version: "0.9", useInstead: nil))
        #expect(policy.version(for: ReleaseAudience(userID: "user-1"), at: Self.now) == nil)
    }

    @Test("a request's decision against the platform's latest: latest as is, another version, or nothing to offer")
    func decisionAgainstLatest() {
        let user = ReleaseAudience(userID: "user-1")
        var policy = ReleasePolicy(tenantID: "acme", miniAppID: "app1")
        #expect(policy.decision(latest: "2.0", for: user, at: Self.now) == .latest)
        policy.stable = "1.0"
        #expect(policy.decision(latest: "2.0", for: user, at: Self.now) == .version("1.0"))
        #expect(policy.decision(latest: "1.0", for: user, at: Self.now) == .latest)
        policy.candidate = ReleaseCandidate(version: "2.0", percent: RolloutPercent("100")!)
        #expect(policy.decision(latest: "2.0", for: user, at: Self.now) == .latest)
        #expect(policy.decision(latest: "2.0", for: ReleaseAudience(userID: nil), at: Self.now) == .version("1.0"))
        policy.withdrawn = [WithdrawnVersion(version: "1.0", useInstead: nil)]
        #expect(
            policy.decision(latest: "2.0", for: ReleaseAudience(userID: nil), at: Self.now) == .latest,
            "a withdrawn stable with no stand-in gives way to the platform's latest")
        policy.withdrawn.append(WithdrawnVersion(version: "2.0", useInstead: nil))
        #expect(policy.decision(latest: "2.0", for: user, at: Self.now) == .withdrawn("2.0"))
    }

    @Test("percentages and host-version ranges parse as documented and refuse everything else")
    func parsing() {
        #expect(RolloutPercent("12.34")?.basisPoints == 1_234 && RolloutPercent("12.5")?.basisPoints == 1_250)
        #expect(RolloutPercent("100")?.basisPoints == 10_000 && RolloutPercent("0")?.basisPoints == 0)
        for bad in ["100.01", "-1", "12.345", "", ".5", "5.", "1e2", "101", " 5"] {
            #expect(RolloutPercent(bad) == nil, "\(bad)")
        }
        #expect(RolloutPercent("12.50")?.description == "12.5" && RolloutPercent("0.05")?.description == "0.05")
        #expect(HostVersionRange(">=2.4 <3")?.description == ">=2.4 <3")
        #expect(HostVersionRange("=2.5")?.contains(HostAppVersion("2.5.0")!) == true)
        for bad in ["", ">=3 <2", ">=2 >=3", "~2", ">=2.x", "=2 <3", ">=1 <2 <3"] {
            #expect(HostVersionRange(bad) == nil, "\(bad)")
        }
    }

    @Test("the rules refuse a candidate equal to stable, steps out of order or in the past, long or malformed lists")
    func rules() throws {
        func refusal(_ change: (inout ReleasePolicy) -> Void) -> String? {
            var policy = Self.policy("10")
            change(&policy)
            do {
                try ReleasePolicyRules.check(policy, now: Self.now)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.candidate?.version = "1.0" }?.contains("stable") == true)
        #expect(refusal { $0.candidate?.steps = [RolloutStep(percent: .all, at: Self.now)] }?.contains("future") == true)
        #expect(
            refusal {
                $0.candidate?.steps = [
                    RolloutStep(percent: .all, at: Self.now.addingTimeInterval(20)),
                    RolloutStep(percent: .all, at: Self.now.addingTimeInterval(10)),
                ]
            }?.contains("order") == true)
        #expect(
            refusal { $0.candidate?.allowUsers = Set((0...ReleasePolicyRules.maxListedUsers).map { "u\($0)" }) }?
                .contains("at most 100000") == true)
        #expect(refusal { $0.candidate?.denyUsers = ["has space"] }?.contains("malformed") == true)
        #expect(refusal { $0.candidate?.allowUsers = ["a"]; $0.candidate?.denyUsers = ["a"] }?.contains("both") == true)
        #expect(refusal { $0.stable = "1.0/../x" }?.contains("stable version") == true)
    }
}
