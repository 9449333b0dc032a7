import Foundation
@testable import GatewayCore
@testable import GatewaySQLite
import Testing

/// Issue 15, item 6: `Tenant` (the domain), `TenantRecord` (the storage row both engines
/// keep) and `TenantField` (the one list of configurable fields) agree, so a field added to
/// one cannot silently miss the others. (The export document's round trip is in
/// GatewayCLITests.)
@Suite("Tenant shapes agree")
struct TenantShapesTests {
    /// Dotted paths of a tenant's leaf values (`platform.baseURL`, `featureFlags`, ...),
    /// read by reflection, with a printable form of each value.
    static func leaves(_ value: Any, path: String = "") -> [String: String] {
        let mirror = Mirror(reflecting: value)
        // An optional section (the courier's channels) is its value's leaves when set.
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return [path: "nil"] }
            return leaves(wrapped, path: path)
        }
        let isLeaf = mirror.displayStyle != .struct || value is SecretValue || value is Date
        if isLeaf {
            if let secret = value as? SecretValue { return [path: secret.plaintext] }
            // Dictionaries print in no fixed order; compare them sorted.
            if let flags = value as? [String: Bool] {
                return [path: flags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")]
            }
            return [path: String(describing: value)]
        }
        var result: [String: String] = [:]
        for child in mirror.children {
            guard let label = child.label else { continue }
            result.merge(leaves(child.value, path: path.isEmpty ? label : path + "." + label)) { $1 }
        }
        return result
    }

    /// Bookkeeping the store owns, not configuration.
    static let bookkeeping: Set<String> = ["configVersion", "createdAt", "updatedAt"]

    @Test("TenantField lists exactly the tenant's configurable leaves, and the full fixture sets every one of them")
    func fieldListIsComplete() {
        let full = Self.leaves(Fixtures.fullTenant())
        let defaults = Self.leaves(Tenant(id: "acme", displayName: "Acme"))
        let configurable = Set(full.keys).subtracting(Self.bookkeeping)
        #expect(configurable == Set(TenantField.allCases.map(\.rawValue)))
        for path in configurable.subtracting(["id"]).sorted() {
            #expect(
                full[path] != defaults[path],
                "Fixtures.fullTenant() leaves \(path) at its default; set it so round trips test it")
        }
    }

    @Test(
        "the storage row keeps every field: one column per TenantField (the journey settings share one JSON column, the courier's and the passkeys' one each) plus the store's bookkeeping, and a full tenant survives the round trip"
    )
    func recordRoundTrip() throws {
        let journeys = TenantField.allCases.filter { $0.rawValue.hasPrefix("journeys.") }.count
        let courier = TenantField.allCases.filter { $0.rawValue.hasPrefix("courier.") }.count
        let passkeys = TenantField.allCases.filter { $0.rawValue.hasPrefix("passkeys.") }.count
        #expect(journeys == 8 && courier == 12 && passkeys == 2)
        #expect(
            TenantRecord.CodingKeys.allCases.count
                == TenantField.allCases.count - journeys + 1 - courier + 1 - passkeys + 1 + Self.bookkeeping.count)
        var tenant = Fixtures.fullTenant()
        tenant.configVersion = 9
        tenant.createdAt = StoreClock.date(1_800_000_000_123)
        tenant.updatedAt = StoreClock.date(1_800_000_100_456)
        let back = try TenantRecord(tenant, sealer: Fixtures.sealer).tenant(sealer: Fixtures.sealer)
        #expect(Self.leaves(back) == Self.leaves(tenant))
    }
}
