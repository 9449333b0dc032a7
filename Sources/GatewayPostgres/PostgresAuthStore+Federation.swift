import Foundation
import GatewayCore
import PostgresNIO

extension PostgresAuthStore {
    // MARK: identity providers

    public func identityProviders(tenantID: String) async throws -> [IdentityProvider] {
        try await client.all("""
            SELECT document, client_secret_sealed FROM auth_identity_providers WHERE tenant_id = \(tenantID) ORDER BY alias COLLATE "C"
            """, as: (String, String?).self)
            .map { try IdentityProvider.stored($0.0, sealedSecret: $0.1, sealer: database.sealer) }
    }

    public func addIdentityProvider(_ provider: IdentityProvider) async throws {
        try provider.validate()
        let document = try provider.storedDocument(), sealed = try provider.sealedSecret(database.sealer)
        let inserted = try await client.execute("""
            INSERT INTO auth_identity_providers (tenant_id, alias, document, client_secret_sealed, created_at_ms)
            VALUES (\(provider.tenantID), \(provider.alias), \(document), \(sealed), \(StoreClock.milliseconds(provider.createdAt)))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
        if inserted == 0 { throw AuthStoreError.alreadyExists("identity provider \(provider.alias)") }
    }

    public func removeIdentityProvider(tenantID: String, alias: String) async throws {
        let removed = try await client.execute(
            "DELETE FROM auth_identity_providers WHERE tenant_id = \(tenantID) AND alias = \(alias) RETURNING 1")
        if removed == 0 { throw AuthStoreError.notFound("identity provider \(alias)") }
    }

    // MARK: trusted issuers

    public func trustedIssuers(tenantID: String) async throws -> [TrustedIssuer] {
        try await client.all("""
            SELECT document, introspection_secret_sealed FROM auth_trusted_issuers WHERE tenant_id = \(tenantID) ORDER BY issuer COLLATE "C"
            """, as: (String, String?).self)
            .map { try TrustedIssuer.stored($0.0, sealedSecret: $0.1, sealer: database.sealer) }
    }

    public func trustIssuer(_ issuer: TrustedIssuer) async throws {
        try issuer.validate()
        let document = try issuer.storedDocument(), sealed = try issuer.sealedSecret(database.sealer)
        try await client.execute("""
            INSERT INTO auth_trusted_issuers (tenant_id, issuer, document, introspection_secret_sealed, created_at_ms)
            VALUES (\(issuer.tenantID), \(issuer.issuer), \(document), \(sealed), \(StoreClock.milliseconds(issuer.createdAt)))
            ON CONFLICT (tenant_id, issuer) DO UPDATE SET document = excluded.document, introspection_secret_sealed = excluded.introspection_secret_sealed
            """)
    }

    public func untrustIssuer(tenantID: String, issuer: String) async throws {
        let removed = try await client.execute(
            "DELETE FROM auth_trusted_issuers WHERE tenant_id = \(tenantID) AND issuer = \(issuer) RETURNING 1")
        if removed == 0 { throw AuthStoreError.notFound("trusted issuer \(issuer)") }
    }

    // MARK: identity links

    private typealias LinkRow = (String, String, String, String, Int64)
    private static let linkColumns = "tenant_id, issuer, external_subject, subject, created_at_ms"

    private static func link(_ row: LinkRow) -> IdentityLink {
        IdentityLink(
            tenantID: row.0, issuer: row.1, externalSubject: row.2, subject: row.3, createdAt: StoreClock.date(row.4))
    }

    public func identityLink(tenantID: String, issuer: String, externalSubject: String) async throws -> IdentityLink? {
        try await client.first("""
            SELECT \(unescaped: Self.linkColumns) FROM auth_identity_links
            WHERE tenant_id = \(tenantID) AND issuer = \(issuer) AND external_subject = \(externalSubject)
            """, as: LinkRow.self).map(Self.link)
    }

    public func identityLinks(tenantID: String, subject: String) async throws -> [IdentityLink] {
        try await client.all("""
            SELECT \(unescaped: Self.linkColumns) FROM auth_identity_links WHERE tenant_id = \(tenantID) AND subject = \(subject)
            ORDER BY issuer COLLATE "C", external_subject COLLATE "C"
            """, as: LinkRow.self).map(Self.link)
    }

    public func addIdentityLink(_ link: IdentityLink) async throws {
        let inserted = try await client.execute("""
            INSERT INTO auth_identity_links (tenant_id, issuer, external_subject, subject, created_at_ms)
            VALUES (\(link.tenantID), \(link.issuer), \(link.externalSubject), \(link.subject), \(StoreClock.milliseconds(link.createdAt)))
            ON CONFLICT DO NOTHING RETURNING 1
            """)
        if inserted == 0 {
            throw AuthStoreError.alreadyExists("link of \(link.issuer) subject \(link.externalSubject)")
        }
    }

    public func removeIdentityLink(tenantID: String, issuer: String, externalSubject: String) async throws {
        let removed = try await client.execute("""
            DELETE FROM auth_identity_links WHERE tenant_id = \(tenantID) AND issuer = \(issuer) AND external_subject = \(externalSubject) RETURNING 1
            """)
        if removed == 0 { throw AuthStoreError.notFound("link of \(issuer) subject \(externalSubject)") }
    }
}
