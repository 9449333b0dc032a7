import Testing
@testable import GatewayCore

@Suite struct HostAppVersionTests {
    @Test(arguments: ["0", "2", "2.1", "2.4.0", "1.2.3.4", "999999.0.0.999999", "02.01"])
    func parsesTheGrammar(_ text: String) throws {
        let version = try #require(HostAppVersion(text))
        #expect(version.text == text)
        #expect(HostAppVersion.isValid(text))
    }

    @Test(arguments: [
        "", ".", "2.", ".2", "2..1", "1.2.3.4.5", "1234567", "1.1234567", "v2", "2.a", "2-1", " 2.1", "2.1 ", "2.1\n",
        "-1", "+1", "2,1", "١.٢", "２.1", "1e3",
    ])
    func refusesAnythingElse(_ text: String) {
        #expect(HostAppVersion(text) == nil)
        #expect(!HostAppVersion.isValid(text))
    }

    @Test(arguments: [
        ("2.10", "2.9"), ("2.9.1", "2.9"), ("10", "9.99"), ("1.0.0.1", "1"), ("3", "2.999999.999999.999999"),
        ("0.0.0.1", "0"),
    ])
    func comparesNumericallyComponentByComponent(_ higher: String, _ lower: String) throws {
        let high = try #require(HostAppVersion(higher))
        let low = try #require(HostAppVersion(lower))
        #expect(high > low)
        #expect(low < high)
        #expect(high != low)
    }

    @Test(arguments: [("2.1", "2.1.0"), ("2", "2.0.0.0"), ("02.1", "2.01"), ("0", "0.0")])
    func missingComponentsCountAsZero(_ left: String, _ right: String) throws {
        let a = try #require(HostAppVersion(left))
        let b = try #require(HostAppVersion(right))
        #expect(a == b)
        #expect(!(a < b) && !(b < a))
        #expect(a.hashValue == b.hashValue)
    }

    @Test func verdictFollowsMinimumThenLatest() throws {
        let policy = HostAppVersionPolicy(minimumVersion: "2.1", latestVersion: "2.4.0")
        func verdict(_ text: String) throws -> HostAppUpdate { policy.verdict(for: try #require(HostAppVersion(text))) }
        #expect(try verdict("1.9") == .required)
        #expect(try verdict("2.0.99") == .required)
        #expect(try verdict("2.1") == .recommended)
        #expect(try verdict("2.1.0.0") == .recommended)
        #expect(try verdict("2.3.999999") == .recommended)
        #expect(try verdict("2.4") == .none)
        #expect(try verdict("2.10") == .none)
        #expect(try verdict("3") == .none)
    }

    @Test func verdictWithoutVersionsIsNone() throws {
        let version = try #require(HostAppVersion("0"))
        #expect(HostAppVersionPolicy().verdict(for: version) == .none)
        #expect(HostAppVersionPolicy(minimumVersion: "1").verdict(for: version) == .required)
        #expect(HostAppVersionPolicy(latestVersion: "1").verdict(for: version) == .recommended)
    }
}
