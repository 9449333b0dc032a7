import GatewayCore
import GRDB

/// The durable copy of revoked token ids (migration `v4-sessions-revocations`): kept until
/// the token expires, so a replica that starts after Redis lost its data still refuses them.
enum RevocationMigration {
    static func apply(_ db: Database) throws {
        try db.create(table: "auth_revoked_tokens") { t in
            // Grows with every new revocation: replicas poll for ids above the last they saw.
            t.autoIncrementedPrimaryKey("id")
            // The key the in-process mirror uses (`oauth:revoked-jti:{tenant}:{jti}`).
            t.column("token_key", .text).notNull().unique()
            t.column("revoked_until_ms", .integer).notNull().indexed()
        }
    }
}
