import GatewayCore
import GRDB

/// Tables of per-user mini-app state (consents, secure storage), analytics,
/// localization overrides and tenant domains. They live in the tenant store's SQLite
/// file; every row that belongs to a tenant is removed with it (`ON DELETE CASCADE`).
///
/// Registered into the tenant store's migrator by ``register(in:)``. Append new
/// migrations (prefixed `userstate-`); never edit old ones.
enum UserStateMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("userstate-v1") { db in
            try createUserTables(db)
            try createAnalyticsTable(db)
            try createConfigTables(db)
        }
        // Issued mini-app access-token ids, so they can be revoked before they expire.
        migrator.registerMigration("userstate-v2-miniapp-tokens") { db in
            try db.create(table: "miniapp_tokens") { t in
                tenantColumn(t)
                t.column("user_id", .text).notNull()
                t.column("miniapp_id", .text).notNull()
                t.column("jti", .text).notNull()
                t.column("expires_at_ms", .integer).notNull()
                t.primaryKey(["tenant_id", "jti"])
            }
            try db.create(
                index: "miniapp_tokens_owner", on: "miniapp_tokens", columns: ["tenant_id", "user_id", "miniapp_id"])
        }
    }

    private static func tenantColumn(_ t: TableDefinition) {
        t.column("tenant_id", .text).notNull().references("tenants", onDelete: .cascade)
    }

    private static func createUserTables(_ db: Database) throws {
        // One row per (tenant, user, mini app) the user has touched.
        try db.create(table: "user_miniapps") { t in
            tenantColumn(t)
            t.column("user_id", .text).notNull()
            t.column("miniapp_id", .text).notNull()
            t.column("consent_version", .integer).notNull().defaults(to: 0)
            t.column("storage_used_bytes", .integer).notNull().defaults(to: 0)
            t.column("storage_item_count", .integer).notNull().defaults(to: 0)
            t.column("last_used_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "user_id", "miniapp_id"])
        }
        try db.create(table: "user_consents") { t in
            tenantColumn(t)
            t.column("user_id", .text).notNull()
            t.column("miniapp_id", .text).notNull()
            t.column("permission", .text).notNull()
            t.column("status", .text).notNull()
            t.column("updated_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "user_id", "miniapp_id", "permission"])
        }
        try db.create(table: "secure_storage_items") { t in
            tenantColumn(t)
            t.column("user_id", .text).notNull()
            t.column("miniapp_id", .text).notNull()
            t.column("key", .text).notNull()
            t.column("value_sealed", .text).notNull()
            t.column("size_bytes", .integer).notNull()
            t.column("updated_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "user_id", "miniapp_id", "key"])
        }
    }

    private static func createAnalyticsTable(_ db: Database) throws {
        try db.create(table: "analytics_events") { t in
            t.autoIncrementedPrimaryKey("id")
            tenantColumn(t)
            t.column("miniapp_id", .text).notNull()
            t.column("kind", .text).notNull()
            t.column("type", .text).notNull()
            t.column("event_json", .text).notNull()
            t.column("received_at_ms", .integer).notNull()
        }
        try db.create(
            index: "analytics_events_tenant_time", on: "analytics_events", columns: ["tenant_id", "received_at_ms"])
        try db.create(index: "analytics_events_time", on: "analytics_events", columns: ["received_at_ms"])
    }

    private static func createConfigTables(_ db: Database) throws {
        try db.create(table: "localization_overrides") { t in
            tenantColumn(t)
            t.column("locale", .text).notNull()
            t.column("key", .text).notNull()
            t.column("value", .text).notNull()
            t.column("updated_at_ms", .integer).notNull()
            t.primaryKey(["tenant_id", "locale", "key"])
        }
        // Per-tenant localization settings and a counter bumped by every override change.
        try db.create(table: "localization_state") { t in
            t.primaryKey("tenant_id", .text).references("tenants", onDelete: .cascade)
            t.column("default_locale", .text)
            t.column("version", .integer).notNull().defaults(to: 0)
        }
        try db.create(table: "tenant_domains") { t in
            t.primaryKey("host", .text)
            tenantColumn(t)
            t.column("app_ids", .text).notNull()
            t.column("created_at_ms", .integer).notNull()
        }
        try db.create(index: "tenant_domains_tenant", on: "tenant_domains", columns: ["tenant_id"])
    }
}
