import Foundation

/// A web domain a tenant's universal links, AASA and `assetlinks.json` files are served for.
public struct TenantDomain: Sendable, Equatable, Codable {
    /// How many Apple app ids and how many Android apps one domain holds at most.
    public static let maxApps = 50

    /// Lowercase DNS host name, no port.
    public var host: String
    public var tenantID: String
    /// Apple app ids `TEAMID.bundle.id` allowed for applinks and webcredentials.
    public var appIDs: [String]
    /// Android apps granted app links and the domain's passkeys (`get_login_creds`).
    public var androidApps: [AndroidApp]
    public var createdAt: Date

    public init(
        host: String, tenantID: String, appIDs: [String], androidApps: [AndroidApp] = [], createdAt: Date = Date()
    ) {
        self.host = host
        self.tenantID = tenantID
        self.appIDs = appIDs
        self.androidApps = androidApps
        self.createdAt = createdAt
    }

    private enum CodingKeys: String, CodingKey {
        case host, tenantID, appIDs, androidApps, createdAt
    }

    /// Decodes a domain; one written before Android apps existed has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            host: try container.decode(String.self, forKey: .host),
            tenantID: try container.decode(String.self, forKey: .tenantID),
            appIDs: try container.decode([String].self, forKey: .appIDs),
            androidApps: try container.decodeIfPresent([AndroidApp].self, forKey: .androidApps) ?? [],
            createdAt: try container.decode(Date.self, forKey: .createdAt))
    }

    /// This domain with `appIDs` and `androidApps` added: what is there stays, new app ids
    /// are appended, and an Android app already listed gains the new fingerprints. Throws
    /// ``TenantDomainError/invalidAndroidApp(_:)`` past the bounds.
    public func adding(appIDs: [String], androidApps: [AndroidApp]) throws(TenantDomainError) -> TenantDomain {
        var domain = self
        for id in appIDs where !domain.appIDs.contains(id) { domain.appIDs.append(id) }
        for app in androidApps {
            guard let index = domain.androidApps.firstIndex(where: { $0.packageName == app.packageName }) else {
                domain.androidApps.append(app)
                continue
            }
            let held = domain.androidApps[index].sha256CertFingerprints
            domain.androidApps[index].sha256CertFingerprints += app.sha256CertFingerprints.filter { !held.contains($0) }
            if domain.androidApps[index].sha256CertFingerprints.count > AndroidApp.maxFingerprints {
                throw .invalidAndroidApp("\(app.packageName) holds at most \(AndroidApp.maxFingerprints) fingerprints")
            }
        }
        if domain.appIDs.count > Self.maxApps { throw .invalidAppID("a domain holds at most \(Self.maxApps) app ids") }
        if domain.androidApps.count > Self.maxApps {
            throw .invalidAndroidApp("a domain holds at most \(Self.maxApps) Android apps")
        }
        return domain
    }
}

/// What domain operations refuse.
public enum TenantDomainError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidHost(String)
    case invalidAppID(String)
    case invalidAndroidApp(String)
    case hostTaken(host: String, tenantID: String)
    case notFound(host: String)

    public var description: String {
        switch self {
        case .invalidHost(let host):
            "invalid host \"\(host.prefix(80))\" (a DNS name such as app.example.com, no scheme or port)"
        case .invalidAppID(let id):
            "invalid app id \"\(id.prefix(80))\" (expected TEAMID.bundle.id, TEAMID = 10 letters/digits)"
        case .invalidAndroidApp(let detail): "invalid Android app: \(detail.prefix(160))"
        case .hostTaken(let host, let tenant): "host \(host) already belongs to tenant \(tenant)"
        case .notFound(let host): "host \(host) is not configured for this tenant"
        }
    }

    /// The canonical (lowercased) host, or a thrown ``invalidHost(_:)``.
    public static func host(_ host: String) throws(TenantDomainError) -> String {
        let lower = host.lowercased()
        let labels = lower.split(separator: ".", omittingEmptySubsequences: false)
        let valid = lower.utf8.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
            (1 ... 63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }
        }
        guard valid else { throw .invalidHost(host) }
        return lower
    }

    /// The apps a domain add names, checked: each app id (``check(appID:)``) and each Android
    /// app, answered canonical (``AndroidApp/checked(packageName:fingerprints:)``).
    public static func checked(appIDs: [String], androidApps: [AndroidApp]) throws(TenantDomainError) -> [AndroidApp] {
        for id in appIDs { try check(appID: id) }
        return try androidApps.map { app throws(TenantDomainError) in
            try AndroidApp.checked(packageName: app.packageName, fingerprints: app.sha256CertFingerprints)
        }
    }

    /// Throws unless `appID` is `TEAMID.bundle` (TEAMID: 10 of A-Z 0-9; bundle: letters, digits, `.`, `-`).
    public static func check(appID: String) throws(TenantDomainError) {
        let parts = appID.split(separator: ".", maxSplits: 1)
        let ok = parts.count == 2 && parts[0].count == 10
            && parts[0].utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) }
            && (1 ... 155).contains(parts[1].count) && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        if !ok { throw .invalidAppID(appID) }
    }
}

/// Host → tenant mapping with app ids.
public protocol TenantDomainStore: Sendable {
    /// Adds `host` to `tenantID` or, when it already belongs to it, adds the apps
    /// (``TenantDomain/adding(appIDs:androidApps:)``);
    /// `trail(old, new)` (old nil: a new host) is appended to the operators' audit trail in the
    /// same transaction. Throws ``TenantDomainError/hostTaken(host:tenantID:)`` for another
    /// tenant's host.
    @discardableResult
    func add(
        host: String, tenantID: String, appIDs: [String], androidApps: [AndroidApp],
        trail: (@Sendable (TenantDomain?, TenantDomain) -> AuditDraft)?
    ) async throws -> TenantDomain
    /// Removes `host` from `tenantID`, `trail(old)` appended in the same transaction; throws
    /// ``TenantDomainError/notFound(host:)``.
    func remove(host: String, tenantID: String, trail: (@Sendable (TenantDomain) -> AuditDraft)?) async throws
    /// The domain for a request's Host (nil when unknown).
    func domain(host: String) async throws -> TenantDomain?
    /// Domains of one tenant (nil: all), sorted by host.
    func domains(tenantID: String?) async throws -> [TenantDomain]
}

extension TenantDomainStore {
    /// Adds a host or app ids without an audit record.
    @discardableResult
    public func add(host: String, tenantID: String, appIDs: [String]) async throws -> TenantDomain {
        try await add(host: host, tenantID: tenantID, appIDs: appIDs, androidApps: [], trail: nil)
    }

    /// Removes a host without an audit record.
    public func remove(host: String, tenantID: String) async throws {
        try await remove(host: host, tenantID: tenantID, trail: nil)
    }
}
