import GatewayCore
import GRDB

/// Tables of the authorization server (migration `v2-auth`), in the tenant database file.
enum AuthMigration {
    static func apply(_ db: Database) throws {
        // Signing keys: private key sealed with the master key; `state` active | retired.
        try db.create(table: "auth_signing_keys") { t in
            t.primaryKey("kid", .text)
            t.column("tenant_id", .text).notNull().indexed()
            t.column("state", .text).notNull()
            t.column("private_key_sealed", .text).notNull()
            t.column("created_at_ms", .integer).notNull()
        }
        // OAuth clients; list fields are JSON arrays; the secret is only stored hashed.
        try db.create(table: "auth_clients") { t in
            t.column("tenant_id", .text).notNull()
            t.column("client_id", .text).notNull()
            t.column("document", .text).notNull()
            t.column("secret_hash", .text)
            t.column("created_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "client_id"])
        }
        try db.create(table: "auth_users") { t in
            t.column("tenant_id", .text).notNull()
            t.column("username", .text).notNull()
            t.column("subject", .text).notNull()
            t.column("password_hash", .text).notNull()
            t.column("name", .text)
            t.column("email", .text)
            t.column("picture", .text)
            t.column("disabled", .boolean).notNull()
            t.column("created_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "username"])
            t.uniqueKey(["tenant_id", "subject"])
        }
        // Refresh-token families and their tokens (stored as SHA-256 hashes only).
        try db.create(table: "auth_refresh_families") { t in
            t.primaryKey("family_id", .text)
            t.column("tenant_id", .text).notNull()
            t.column("client_id", .text).notNull()
            t.column("subject", .text).notNull()
            t.column("scope", .text).notNull()
            t.column("nonce", .text)
            t.column("dpop_jkt", .text)
            t.column("revoked", .boolean).notNull()
            t.column("created_at_ms", .integer).notNull()
            t.column("absolute_expiry_ms", .integer).notNull()
        }
        try db.create(table: "auth_refresh_tokens") { t in
            t.primaryKey("token_hash", .text)
            t.column("family_id", .text).notNull().indexed().references("auth_refresh_families", onDelete: .cascade)
            t.column("state", .text).notNull() // active | rotated
            t.column("idle_expiry_ms", .integer).notNull()
        }
        // Access-token ids issued per family, so revoking a family revokes them until exp.
        try db.create(table: "auth_family_access_tokens") { t in
            t.column("family_id", .text).notNull().indexed().references("auth_refresh_families", onDelete: .cascade)
            t.column("jti", .text).notNull()
            t.column("expires_at_ms", .integer).notNull()
        }
    }
}
