import Foundation
import GatewayCore
import GRDB

extension SQLiteAuthStore {
    // MARK: identity providers

    public func identityProviders(tenantID: String) async throws -> [IdentityProvider] {
        let sealer = self.sealer
        let rows: [(document: String, sealed: String?)] = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT document, client_secret_sealed FROM auth_identity_providers WHERE tenant_id = ? ORDER BY alias",
                arguments: [tenantID]
            )
            .map { (document: $0["document"], sealed: $0["client_secret_sealed"]) }
        }
        return try rows.map { try IdentityProvider.stored($0.document, sealedSecret: $0.sealed, sealer: sealer) }
    }

    public func addIdentityProvider(
        _ provider: IdentityProvider, trail: (@Sendable (IdentityProvider) -> AuditDraft)?
    ) async throws {
        try provider.validate()
        let document = try provider.storedDocument(), sealed = try provider.sealedSecret(sealer)
        let sealer = self.sealer
        try await pool.write { db in
            // Writes are serialized: the auto-redirect rule reads what the others wrote.
            let existing = try Row.fetchAll(
                db, sql: "SELECT document, client_secret_sealed FROM auth_identity_providers WHERE tenant_id = ?",
                arguments: [provider.tenantID]
            ).map { try IdentityProvider.stored($0["document"], sealedSecret: $0["client_secret_sealed"], sealer: sealer) }
            try provider.checkBeside(existing)
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM auth_identity_providers WHERE tenant_id = ? AND alias = ?",
                arguments: [provider.tenantID, provider.alias]) == true
            {
                throw AuthStoreError.alreadyExists("identity provider \(provider.alias)")
            }
            try db.execute(
                sql:
                    "INSERT INTO auth_identity_providers (tenant_id, alias, document, client_secret_sealed, created_at_ms) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    provider.tenantID, provider.alias, document, sealed, StoreClock.milliseconds(provider.createdAt),
                ])
            if let trail { _ = try SQLiteAuditTrail.append(trail(provider), in: db) }
        }
    }

    public func removeIdentityProvider(
        tenantID: String, alias: String, trail: (@Sendable (IdentityProvider) -> AuditDraft)?
    ) async throws {
        let sealer = self.sealer
        try await pool.write { db in
            guard
                let old = try Row.fetchOne(
                    db,
                    sql: "SELECT document, client_secret_sealed FROM auth_identity_providers WHERE tenant_id = ? AND alias = ?",
                    arguments: [tenantID, alias]
                ).map({ try IdentityProvider.stored($0["document"], sealedSecret: $0["client_secret_sealed"], sealer: sealer) })
            else { throw AuthStoreError.notFound("identity provider \(alias)") }
            try db.execute(
                sql: "DELETE FROM auth_identity_providers WHERE tenant_id = ? AND alias = ?",
                arguments: [tenantID, alias])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old), in: db) }
        }
    }

    // MARK: trusted issuers

    public func trustedIssuers(tenantID: String) async throws -> [TrustedIssuer] {
        let sealer = self.sealer
        let rows: [(document: String, sealed: String?)] = try await pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT document, introspection_secret_sealed FROM auth_trusted_issuers WHERE tenant_id = ? ORDER BY issuer",
                arguments: [tenantID]
            )
            .map { (document: $0["document"], sealed: $0["introspection_secret_sealed"]) }
        }
        return try rows.map { try TrustedIssuer.stored($0.document, sealedSecret: $0.sealed, sealer: sealer) }
    }

    public func trustIssuer(
        _ issuer: TrustedIssuer, trail: (@Sendable (TrustedIssuer?, TrustedIssuer) -> AuditDraft)?
    ) async throws {
        try issuer.validate()
        let document = try issuer.storedDocument(), sealed = try issuer.sealedSecret(sealer)
        let sealer = self.sealer
        try await pool.write { db in
            let old = try Self.trustedIssuer(db, tenantID: issuer.tenantID, issuer: issuer.issuer, sealer: sealer)
            try db.execute(
                sql: """
                    INSERT INTO auth_trusted_issuers (tenant_id, issuer, document, introspection_secret_sealed, created_at_ms) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tenant_id, issuer) DO UPDATE SET document = excluded.document, introspection_secret_sealed = excluded.introspection_secret_sealed
                    """,
                arguments: [
                    issuer.tenantID, issuer.issuer, document, sealed, StoreClock.milliseconds(issuer.createdAt),
                ])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old, issuer), in: db) }
        }
    }

    public func untrustIssuer(
        tenantID: String, issuer: String, trail: (@Sendable (TrustedIssuer) -> AuditDraft)?
    ) async throws {
        let sealer = self.sealer
        try await pool.write { db in
            guard let old = try Self.trustedIssuer(db, tenantID: tenantID, issuer: issuer, sealer: sealer) else {
                throw AuthStoreError.notFound("trusted issuer \(issuer)")
            }
            try db.execute(
                sql: "DELETE FROM auth_trusted_issuers WHERE tenant_id = ? AND issuer = ?",
                arguments: [tenantID, issuer])
            if let trail { _ = try SQLiteAuditTrail.append(trail(old), in: db) }
        }
    }

    /// The trust of `issuer` stored now, inside the caller's transaction.
    private static func trustedIssuer(
        _ db: Database, tenantID: String, issuer: String, sealer: SecretSealer
    ) throws -> TrustedIssuer? {
        try Row.fetchOne(
            db, sql: "SELECT document, introspection_secret_sealed FROM auth_trusted_issuers WHERE tenant_id = ? AND issuer = ?",
            arguments: [tenantID, issuer]
        ).map { try TrustedIssuer.stored($0["document"], sealedSecret: $0["introspection_secret_sealed"], sealer: sealer) }
    }

    // MARK: identity links

    private static func link(_ row: Row) -> IdentityLink {
        IdentityLink(
            tenantID: row["tenant_id"], issuer: row["issuer"], externalSubject: row["external_subject"],
            subject: row["subject"],
            createdAt: StoreClock.date(row["created_at_ms"]))
    }

    public func identityLink(tenantID: String, issuer: String, externalSubject: String) async throws -> IdentityLink? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT * FROM auth_identity_links WHERE tenant_id = ? AND issuer = ? AND external_subject = ?",
                arguments: [tenantID, issuer, externalSubject]
            ).map(Self.link)
        }
    }

    public func identityLinks(tenantID: String, subject: String) async throws -> [IdentityLink] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT * FROM auth_identity_links WHERE tenant_id = ? AND subject = ? ORDER BY issuer, external_subject",
                arguments: [tenantID, subject]
            ).map(Self.link)
        }
    }

    public func addIdentityLink(_ link: IdentityLink) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM auth_identity_links WHERE tenant_id = ? AND issuer = ? AND external_subject = ?",
                arguments: [link.tenantID, link.issuer, link.externalSubject]) == true
            {
                throw AuthStoreError.alreadyExists("link of \(link.issuer) subject \(link.externalSubject)")
            }
            try db.execute(
                sql:
                    "INSERT INTO auth_identity_links (tenant_id, issuer, external_subject, subject, created_at_ms) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    link.tenantID, link.issuer, link.externalSubject, link.subject,
                    StoreClock.milliseconds(link.createdAt),
                ])
        }
    }

    public func removeIdentityLink(tenantID: String, issuer: String, externalSubject: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM auth_identity_links WHERE tenant_id = ? AND issuer = ? AND external_subject = ?",
                arguments: [tenantID, issuer, externalSubject])
            if db.changesCount == 0 { throw AuthStoreError.notFound("link of \(issuer) subject \(externalSubject)") }
        }
    }
}
