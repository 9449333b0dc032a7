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
        let name = host.split(separator: ":").first.map(String.init) ?? host
        guard let domain = try await domains.domain(host: name) else { return nil }
        return try AppSiteAssociation.document(for: domain)
    }
}
