import GatewayCore
import GRDB

/// Tables of federation (migration `v10-federation`), in the tenant database file.
enum FederationMigration {
    static func apply(_ db: Database) throws {
        // Upstream OpenID Providers; the client secret sealed with the master key.
        try db.create(table: "auth_identity_providers") { t in
            t.column("tenant_id", .text).notNull()
            t.column("alias", .text).notNull()
            t.column("document", .text).notNull()
            t.column("client_secret_sealed", .text)
            t.column("created_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "alias"])
        }
        // Issuers whose access tokens a tenant accepts.
        try db.create(table: "auth_trusted_issuers") { t in
            t.column("tenant_id", .text).notNull()
            t.column("issuer", .text).notNull()
            t.column("document", .text).notNull()
            t.column("introspection_secret_sealed", .text)
            t.column("created_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "issuer"])
        }
        // Upstream identity (iss + sub) → local user.
        try db.create(table: "auth_identity_links") { t in
            t.column("tenant_id", .text).notNull()
            t.column("issuer", .text).notNull()
            t.column("external_subject", .text).notNull()
            t.column("subject", .text).notNull()
            t.column("created_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "issuer", "external_subject"])
        }
        try db.create(
            index: "auth_identity_links_subject", on: "auth_identity_links", columns: ["tenant_id", "subject"])
    }
}
