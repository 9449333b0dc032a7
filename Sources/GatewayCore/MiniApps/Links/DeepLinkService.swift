import Foundation

/// Deep links and AASA documents over the tenant domain table.
public struct DeepLinkService: Sendable {
    private let domains: any TenantDomainStore

    public init(domains: any TenantDomainStore) {
        self.domains = domains
    }

    /// Resolves `url` against `tenantID`'s domains; throws ``DeepLinkError``.
    public func resolve(_ url: String, tenantID: String) async throws -> DeepLink {
        let hosts = try await domains.domains(tenantID: tenantID).map(\.host)
        return try DeepLinkResolver.resolve(url, tenantHosts: Set(hosts))
    }

    /// The AASA JSON for a request's `Host` header (port ignored), nil for an unknown host.
    public func appSiteAssociation(host: String) async throws -> Data? {
        guard let domain = try await domain(host: host) else { return nil }
        return try AppSiteAssociation.document(for: domain)
    }

    /// The `assetlinks.json` for a request's `Host` header (port ignored), nil for an unknown host.
    public func assetLinks(host: String) async throws -> Data? {
        guard let domain = try await domain(host: host) else { return nil }
        return try AssetLinks.document(for: domain)
    }

    private func domain(host: String) async throws -> TenantDomain? {
        try await domains.domain(host: host.split(separator: ":").first.map(String.init) ?? host)
    }
}
