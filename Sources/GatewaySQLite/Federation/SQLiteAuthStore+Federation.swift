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

    public func addIdentityProvider(_ provider: IdentityProvider) async throws {
        try provider.validate()
        let document = try provider.storedDocument(), sealed = try provider.sealedSecret(sealer)
        try await pool.write { db in
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
        }
    }

    public func removeIdentityProvider(tenantID: String, alias: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM auth_identity_providers WHERE tenant_id = ? AND alias = ?",
                arguments: [tenantID, alias])
            if db.changesCount == 0 { throw AuthStoreError.notFound("identity provider \(alias)") }
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

    public func trustIssuer(_ issuer: TrustedIssuer) async throws {
        try issuer.validate()
        let document = try issuer.storedDocument(), sealed = try issuer.sealedSecret(sealer)
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO auth_trusted_issuers (tenant_id, issuer, document, introspection_secret_sealed, created_at_ms) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tenant_id, issuer) DO UPDATE SET document = excluded.document, introspection_secret_sealed = excluded.introspection_secret_sealed
                    """,
                arguments: [
                    issuer.tenantID, issuer.issuer, document, sealed, StoreClock.milliseconds(issuer.createdAt),
                ])
        }
    }

    public func untrustIssuer(tenantID: String, issuer: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM auth_trusted_issuers WHERE tenant_id = ? AND issuer = ?",
                arguments: [tenantID, issuer])
            if db.changesCount == 0 { throw AuthStoreError.notFound("trusted issuer \(issuer)") }
        }
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
