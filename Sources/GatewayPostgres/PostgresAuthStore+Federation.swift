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

    public func addIdentityProvider(
        _ provider: IdentityProvider, trail: (@Sendable (IdentityProvider) -> AuditDraft)?
    ) async throws {
        try provider.validate()
        let document = try provider.storedDocument(), sealed = try provider.sealedSecret(database.sealer)
        let sealer = database.sealer
        try await database.transaction { connection in
            // One provider writer per tenant: the auto-redirect rule reads what the others wrote.
            let lock = "gateway-identity-providers:" + provider.tenantID
            _ = try await connection.execute("SELECT pg_advisory_xact_lock(hashtext(\(lock)))")
            let existing = try await connection.all(
                "SELECT document, client_secret_sealed FROM auth_identity_providers WHERE tenant_id = \(provider.tenantID)",
                as: (String, String?).self
            ).map { try IdentityProvider.stored($0.0, sealedSecret: $0.1, sealer: sealer) }
            try provider.checkBeside(existing)
            let inserted = try await connection.execute("""
                INSERT INTO auth_identity_providers (tenant_id, alias, document, client_secret_sealed, created_at_ms)
                VALUES (\(provider.tenantID), \(provider.alias), \(document), \(sealed), \(StoreClock.milliseconds(provider.createdAt)))
                ON CONFLICT DO NOTHING RETURNING 1
                """)
            if inserted == 0 { throw AuthStoreError.alreadyExists("identity provider \(provider.alias)") }
            if let trail { _ = try await PostgresAuditTrail.append(trail(provider), on: connection) }
        }
    }

    public func removeIdentityProvider(
        tenantID: String, alias: String, trail: (@Sendable (IdentityProvider) -> AuditDraft)?
    ) async throws {
        let sealer = database.sealer
        try await database.transaction { connection in
            guard
                let row = try await connection.first("""
                    DELETE FROM auth_identity_providers WHERE tenant_id = \(tenantID) AND alias = \(alias)
                    RETURNING document, client_secret_sealed
                    """, as: (String, String?).self)
            else { throw AuthStoreError.notFound("identity provider \(alias)") }
            let old = try IdentityProvider.stored(row.0, sealedSecret: row.1, sealer: sealer)
            if let trail { _ = try await PostgresAuditTrail.append(trail(old), on: connection) }
        }
    }

    // MARK: trusted issuers

    public func trustedIssuers(tenantID: String) async throws -> [TrustedIssuer] {
        try await client.all("""
            SELECT document, introspection_secret_sealed FROM auth_trusted_issuers WHERE tenant_id = \(tenantID) ORDER BY issuer COLLATE "C"
            """, as: (String, String?).self)
            .map { try TrustedIssuer.stored($0.0, sealedSecret: $0.1, sealer: database.sealer) }
    }

    public func trustIssuer(
        _ issuer: TrustedIssuer, trail: (@Sendable (TrustedIssuer?, TrustedIssuer) -> AuditDraft)?
    ) async throws {
        try issuer.validate()
        let document = try issuer.storedDocument(), sealed = try issuer.sealedSecret(database.sealer)
        let sealer = database.sealer
        try await database.transaction { connection in
            let old = try await Self.trustedIssuer(connection, tenantID: issuer.tenantID, issuer: issuer.issuer, sealer: sealer)
            _ = try await connection.execute("""
                INSERT INTO auth_trusted_issuers (tenant_id, issuer, document, introspection_secret_sealed, created_at_ms)
                VALUES (\(issuer.tenantID), \(issuer.issuer), \(document), \(sealed), \(StoreClock.milliseconds(issuer.createdAt)))
                ON CONFLICT (tenant_id, issuer) DO UPDATE SET document = excluded.document, introspection_secret_sealed = excluded.introspection_secret_sealed
                """)
            if let trail { _ = try await PostgresAuditTrail.append(trail(old, issuer), on: connection) }
        }
    }

    public func untrustIssuer(
        tenantID: String, issuer: String, trail: (@Sendable (TrustedIssuer) -> AuditDraft)?
    ) async throws {
        let sealer = database.sealer
        try await database.transaction { connection in
            guard let old = try await Self.trustedIssuer(connection, tenantID: tenantID, issuer: issuer, sealer: sealer) else {
                throw AuthStoreError.notFound("trusted issuer \(issuer)")
            }
            _ = try await connection.execute(
                "DELETE FROM auth_trusted_issuers WHERE tenant_id = \(tenantID) AND issuer = \(issuer)")
            if let trail { _ = try await PostgresAuditTrail.append(trail(old), on: connection) }
        }
    }

    /// The trust of `issuer` stored now, its row locked, inside the caller's transaction.
    private static func trustedIssuer(
        _ connection: some SQLRunner, tenantID: String, issuer: String, sealer: SecretSealer
    ) async throws -> TrustedIssuer? {
        try await connection.first("""
            SELECT document, introspection_secret_sealed FROM auth_trusted_issuers
            WHERE tenant_id = \(tenantID) AND issuer = \(issuer) FOR UPDATE
            """, as: (String, String?).self
        ).map { try TrustedIssuer.stored($0.0, sealedSecret: $0.1, sealer: sealer) }
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
