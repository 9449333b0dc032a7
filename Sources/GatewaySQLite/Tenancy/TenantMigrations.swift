import GatewayCore
import GRDB

/// The versioned schema of the tenant store. Append new migrations; never edit old ones.
enum TenantMigrations {
    /// Names of all migrations, in order.
    static var names: [String] { migrator.migrations }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-tenants") { db in
            try db.create(table: "tenants") { t in
                t.primaryKey("id", .text)
                t.column("display_name", .text).notNull()
                t.column("status", .text).notNull()
                t.column("platform_base_url", .text)
                t.column("platform_project_id", .text)
                t.column("platform_subscription_key_sealed", .text)
                t.column("platform_preview_mode", .boolean).notNull()
                t.column("platform_require_signature", .boolean).notNull()
                t.column("provisioning_base_url", .text)
                t.column("provisioning_super_app_id", .text)
                t.column("provisioning_super_app_version", .text)
                t.column("provisioning_api_key_sealed", .text)
                t.column("storage_max_size_bytes", .integer).notNull()
                t.column("cache_max_count", .integer).notNull()
                t.column("cache_max_days", .integer).notNull()
                t.column("theme_primary_color", .text).notNull()
                t.column("theme_secondary_color", .text).notNull()
                t.column("ttl_manifest_seconds", .integer).notNull()
                t.column("ttl_catalog_seconds", .integer).notNull()
                t.column("ttl_localization_seconds", .integer).notNull()
                t.column("ttl_public_key_seconds", .integer).notNull()
                t.column("config_version", .integer).notNull()
                t.column("created_at_ms", .integer).notNull()
                t.column("updated_at_ms", .integer).notNull()
            }
            // Audit rows outlive their tenant (deletes are audited too): no foreign key.
            try db.create(table: "tenant_audit") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("tenant_id", .text).notNull().indexed()
                t.column("action", .text).notNull()
                t.column("changed_fields", .text).notNull()
                t.column("actor", .text).notNull()
                t.column("at_ms", .integer).notNull()
                t.column("config_version", .integer).notNull()
            }
            // One row; `change_counter` is bumped by every write transaction.
            try db.create(table: "store_state") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("change_counter", .integer).notNull()
            }
            try db.execute(sql: "INSERT INTO store_state (id, change_counter) VALUES (1, 0)")
        }
        migrator.registerMigration("v2-auth") { db in
            try AuthMigration.apply(db)
        }
        UserStateMigrations.register(in: &migrator)
        migrator.registerMigration("v3-host-app") { db in
            // Rows from before keep working: no version policy, no flags.
            try db.alter(table: "tenants") { t in
                t.add(column: "host_min_version", .text)
                t.add(column: "host_latest_version", .text)
                t.add(column: "host_update_url", .text)
                t.add(column: "feature_flags", .text).notNull().defaults(to: "{}")
            }
        }
        migrator.registerMigration("v4-sessions-revocations") { db in
            // Login sessions (`sid`): families from before have none.
            try db.alter(table: "auth_refresh_families") { t in
                t.add(column: "session_id", .text)
            }
            try db.create(
                index: "auth_refresh_families_subject", on: "auth_refresh_families", columns: ["tenant_id", "subject"])
            try RevocationMigration.apply(db)
        }
        migrator.registerMigration("v5-tenant-changes") { db in
            // Which tenants each change token touched, so replicas reload only those.
            try db.create(table: "tenant_changes") { t in
                t.column("change_seq", .integer).notNull()
                t.column("tenant_id", .text).notNull()
                t.primaryKey(["change_seq", "tenant_id"])
            }
        }
        // PostgreSQL creates its one-round-trip refresh rotation function here; SQLite rotates
        // in its write transaction and has nothing to add (the name keeps both lists equal).
        migrator.registerMigration("v6-refresh-rotation") { _ in }
        migrator.registerMigration("v7-refresh-auth-time") { db in
            // When the user authenticated, so refreshed ID tokens repeat `auth_time`.
            try db.alter(table: "auth_refresh_families") { t in
                t.add(column: "auth_time_ms", .integer)
            }
        }
        migrator.registerMigration("v8-tenant-logo") { db in
            // The sign-in page's logo (absolute https URL); none for tenants from before.
            try db.alter(table: "tenants") { t in
                t.add(column: "theme_logo_url", .text)
            }
        }
        migrator.registerMigration("v9-user-totp") { db in
            // A user's TOTP second factor, sealed; users from before sign in with a password only.
            try db.alter(table: "auth_users") { t in
                t.add(column: "totp_secret_sealed", .text)
            }
        }
        migrator.registerMigration("v10-federation") { db in
            // Upstream identity providers, trusted issuers and identity links (issue 16).
            try FederationMigration.apply(db)
        }
        migrator.registerMigration("v11-tenant-ras") { db in
            // The RAS-compatible API's client keys (hashes) and bearer requirement (issue 17).
            try db.alter(table: "tenants") { t in
                t.add(column: "ras_client_keys", .text).notNull().defaults(to: "[]")
                t.add(column: "ras_require_bearer", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v12-user-email-index") { db in
            // `--link-by-verified-email` finds a user by email without scanning the tenant.
            try db.execute(sql: "CREATE INDEX auth_users_email ON auth_users (tenant_id, lower(email))")
        }
        migrator.registerMigration("v13-refresh-purge-indexes") { db in
            // The refresh-state purge finds expired access-token records and dead families by index.
            try db.execute(
                sql: "CREATE INDEX auth_family_access_tokens_expiry ON auth_family_access_tokens (expires_at_ms)")
            try db.execute(
                sql: "CREATE INDEX auth_refresh_families_expiry ON auth_refresh_families (absolute_expiry_ms)")
            try db.execute(
                sql: "CREATE INDEX auth_refresh_families_revoked ON auth_refresh_families (family_id) WHERE revoked = 1"
            )
        }
        migrator.registerMigration("v14-release-policies") { db in
            // Staged releases (issue 29): one policy document per tenant x mini app, and its history.
            try db.execute(
                sql: """
                    CREATE TABLE release_policies (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        mini_app_id TEXT NOT NULL, document TEXT NOT NULL, revision INTEGER NOT NULL,
                        updated_at_ms INTEGER NOT NULL, PRIMARY KEY (tenant_id, mini_app_id))
                    """)
            try db.execute(
                sql: """
                    CREATE TABLE release_history (id INTEGER PRIMARY KEY AUTOINCREMENT,
                        tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE, mini_app_id TEXT NOT NULL,
                        at_ms INTEGER NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL, summary TEXT NOT NULL, reason TEXT)
                    """)
            try db.execute(sql: "CREATE INDEX release_history_app ON release_history (tenant_id, mini_app_id, id)")
        }
        migrator.registerMigration("v15-push-devices") { db in
            // Push devices (issue 30): tokens sealed, found by a keyed fingerprint per tenant x provider.
            try db.execute(
                sql: """
                    CREATE TABLE push_devices (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        device_id TEXT NOT NULL, user_id TEXT NOT NULL, provider TEXT NOT NULL,
                        token_fingerprint TEXT NOT NULL, token_sealed TEXT NOT NULL, platform TEXT NOT NULL,
                        locale TEXT, app_version TEXT, apns_environment TEXT,
                        created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, device_id), UNIQUE (tenant_id, provider, token_fingerprint))
                    """)
            try db.execute(sql: "CREATE INDEX push_devices_user ON push_devices (tenant_id, user_id, updated_at_ms)")
        }
        migrator.registerMigration("v16-push-outbox") { db in
            // The push outbox (issue 30): messages and one delivery per recipient device.
            try db.execute(
                sql: """
                    CREATE TABLE push_messages (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        message_id TEXT NOT NULL, client_id TEXT NOT NULL, mini_app_id TEXT NOT NULL,
                        idempotency_key TEXT, request_hash TEXT NOT NULL, document TEXT NOT NULL,
                        created_at_ms INTEGER NOT NULL, expires_at_ms INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, message_id), UNIQUE (tenant_id, client_id, idempotency_key))
                    """)
            try db.execute(
                sql: """
                    CREATE TABLE push_deliveries (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        message_id TEXT NOT NULL, device_id TEXT NOT NULL, user_id TEXT NOT NULL, provider TEXT NOT NULL,
                        state TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at_ms INTEGER NOT NULL,
                        lease_until_ms INTEGER, updated_at_ms INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, message_id, device_id))
                    """)
            try db.execute(
                sql: "CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at_ms) WHERE state = 'pending'")
            try db.execute(sql: "CREATE INDEX push_deliveries_user ON push_deliveries (tenant_id, user_id)")
            try db.execute(sql: "CREATE INDEX push_messages_expiry ON push_messages (expires_at_ms)")
        }
        migrator.registerMigration("v17-push-credentials") { db in
            // Push provider credentials (issue 30): one sealed document per tenant x provider.
            try db.execute(
                sql: """
                    CREATE TABLE push_credentials (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        provider TEXT NOT NULL, sealed TEXT NOT NULL, updated_at_ms INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, provider))
                    """)
        }
        migrator.registerMigration("v18-messaging") { db in
            // Contacts, blocks and inboxes (issue 31).
            try db.execute(
                sql: """
                    CREATE TABLE user_contacts (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        user_id TEXT NOT NULL, position INTEGER NOT NULL, contact_id TEXT NOT NULL,
                        is_user BOOLEAN NOT NULL, name TEXT, email TEXT,
                        PRIMARY KEY (tenant_id, user_id, contact_id))
                    """)
            try db.execute(sql: "CREATE INDEX user_contacts_contact ON user_contacts (tenant_id, contact_id)")
            try db.execute(
                sql: """
                    CREATE TABLE user_blocks (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        user_id TEXT NOT NULL, blocked_id TEXT NOT NULL, created_at_ms INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, user_id, blocked_id))
                    """)
            try db.execute(sql: "CREATE INDEX user_blocks_blocked ON user_blocks (tenant_id, blocked_id)")
            try db.execute(
                sql: """
                    CREATE TABLE inbox_messages (id INTEGER PRIMARY KEY AUTOINCREMENT,
                        tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE, message_id TEXT NOT NULL,
                        recipient_id TEXT NOT NULL, sender_id TEXT NOT NULL, sender_name TEXT, mini_app_id TEXT NOT NULL,
                        document TEXT NOT NULL, read BOOLEAN NOT NULL, created_at_ms INTEGER NOT NULL,
                        expires_at_ms INTEGER NOT NULL, UNIQUE (tenant_id, message_id))
                    """)
            try db.execute(sql: "CREATE INDEX inbox_messages_recipient ON inbox_messages (tenant_id, recipient_id, id)")
            try db.execute(sql: "CREATE INDEX inbox_messages_sender ON inbox_messages (tenant_id, sender_id)")
            try db.execute(sql: "CREATE INDEX inbox_messages_expiry ON inbox_messages (expires_at_ms)")
        }
        migrator.registerMigration("v19-family-access-token-index") { db in
            // A refresh forgets its family's expired access-token records, and a reuse names the
            // live ones: by (family, expiry), not by walking every record of the family (issue 32:
            // a client refreshing fast made each refresh slower).
            try db.execute(
                sql: """
                    CREATE INDEX auth_family_access_tokens_family_expiry
                    ON auth_family_access_tokens (family_id, expires_at_ms)
                    """)
            try db.execute(sql: "DROP INDEX auth_family_access_tokens_on_family_id")
        }
        migrator.registerMigration("v20-checked-refresh-rotation") { _ in
            // PostgreSQL's refresh in one round trip (a function); SQLite reads, then rotates on
            // its writer, so an unknown token never waits for the write lock. Nothing changes here:
            // the name keeps both engines' migration lists alike.
        }
        migrator.registerMigration("v21-signing-key-schedule") { db in
            // A key's life by its stored times (issue 47): next → signing → verify-only → retired.
            // A key from before has no sign-from: it signs from its creation.
            for column in ["sign_from_ms", "sign_until_ms", "unpublish_at_ms"] {
                try db.execute(sql: "ALTER TABLE auth_signing_keys ADD COLUMN \(column) INTEGER")
            }
        }
        migrator.registerMigration("v22-message-idempotency") { db in
            // A send's Idempotency-Key and what it came to, for a day (issue 47).
            try db.execute(
                sql: """
                    CREATE TABLE message_sends (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        sender_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, request_hash TEXT NOT NULL,
                        outcomes TEXT NOT NULL, created_at_ms INTEGER NOT NULL,
                        PRIMARY KEY (tenant_id, sender_id, idempotency_key))
                    """)
            try db.execute(sql: "CREATE INDEX message_sends_created ON message_sends (created_at_ms)")
        }
        migrator.registerMigration("v23-sealed-contacts") { db in
            // Contacts' names and emails sealed at rest like device tokens (issue 47). Rows from
            // before stay readable (flagged unsealed) until the stores seal them
            // (`sealLegacyContacts`: gatewayctl migrate, and every gateway at start).
            try db.execute(sql: "ALTER TABLE user_contacts ADD COLUMN sealed BOOLEAN NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v24-operators-audit") { db in
            // Operators, their role bindings and the hash-chained audit trail (issue 48).
            // A binding without a tenant is platform-wide; a tenant's bindings go with it.
            try db.execute(
                sql: """
                    CREATE TABLE operators (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
                        password_hash TEXT, secret_hash TEXT, disabled BOOLEAN NOT NULL, created_at_ms INTEGER NOT NULL)
                    """)
            try db.execute(
                sql: """
                    CREATE TABLE operator_bindings (operator_id TEXT NOT NULL REFERENCES operators ON DELETE CASCADE,
                        role TEXT NOT NULL, tenant_id TEXT REFERENCES tenants ON DELETE CASCADE,
                        mini_app_ids TEXT NOT NULL)
                    """)
            try db.execute(
                sql: """
                    CREATE UNIQUE INDEX operator_bindings_scope ON operator_bindings (operator_id, role, COALESCE(tenant_id, ''))
                    """)
            try db.execute(sql: "CREATE INDEX operator_bindings_tenant ON operator_bindings (tenant_id)")
            // Records outlive their tenant (its deletion is recorded in its own chain): no foreign key.
            try db.execute(
                sql: """
                    CREATE TABLE audit_records (id INTEGER PRIMARY KEY AUTOINCREMENT, chain TEXT NOT NULL,
                        sequence INTEGER NOT NULL, time_ms INTEGER NOT NULL, subject TEXT NOT NULL, verb TEXT NOT NULL,
                        resource_type TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL)
                    """)
            try db.execute(sql: "CREATE UNIQUE INDEX audit_records_chain ON audit_records (chain, sequence)")
            try db.execute(sql: "CREATE INDEX audit_records_chain_id ON audit_records (chain, id)")
            try db.execute(sql: "CREATE INDEX audit_records_subject ON audit_records (subject, id)")
            try db.execute(sql: "CREATE INDEX audit_records_time ON audit_records (time_ms)")
        }
        migrator.registerMigration("v25-operator-tokens") { db in
            // Access tokens of the operator realm, by hash, until they expire (issue 48).
            try db.execute(
                sql: """
                    CREATE TABLE operator_tokens (token_hash TEXT PRIMARY KEY,
                        operator_id TEXT NOT NULL REFERENCES operators ON DELETE CASCADE, client_id TEXT,
                        expires_at_ms INTEGER NOT NULL, created_at_ms INTEGER NOT NULL)
                    """)
            try db.execute(sql: "CREATE INDEX operator_tokens_operator ON operator_tokens (operator_id, expires_at_ms)")
        }
        migrator.registerMigration("v26-admin-idempotency") { db in
            // Idempotency-Keys of acting admin calls and their answers, per operator (issue 48).
            try db.execute(
                sql: """
                    CREATE TABLE admin_idempotency (operator_id TEXT NOT NULL REFERENCES operators ON DELETE CASCADE,
                        key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, etag TEXT, body TEXT,
                        expires_at_ms INTEGER NOT NULL, PRIMARY KEY (operator_id, key))
                    """)
        }
        migrator.registerMigration("v27-user-revisions") { db in
            // A user's revision, the admin API's ETag (issue 48); every write bumps it.
            try db.execute(sql: "ALTER TABLE auth_users ADD COLUMN revision INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v28-operator-sign-in") { db in
            // People sign in to the operator realm (issue 48): a sealed TOTP secret, service
            // accounts' public keys (private_key_jwt), how each
            // token's operator authenticated, and one-time codes and refresh tokens by hash.
            try db.execute(sql: "ALTER TABLE operators ADD COLUMN totp_secret_sealed TEXT")
            try db.execute(sql: "ALTER TABLE operators ADD COLUMN jwks TEXT")
            try db.execute(sql: "ALTER TABLE operator_tokens ADD COLUMN method TEXT NOT NULL DEFAULT 'client_secret'")
            try db.execute(
                sql: """
                    CREATE TABLE operator_grants (grant_hash TEXT PRIMARY KEY, kind TEXT NOT NULL,
                        operator_id TEXT NOT NULL REFERENCES operators ON DELETE CASCADE, client_id TEXT NOT NULL,
                        redirect_uri TEXT, code_challenge TEXT, method TEXT NOT NULL,
                        expires_at_ms INTEGER NOT NULL, session_expires_at_ms INTEGER NOT NULL)
                    """)
            try db.execute(sql: "CREATE INDEX operator_grants_operator ON operator_grants (operator_id, expires_at_ms)")
        }
        migrator.registerMigration("v29-admin-jobs") { db in
            // Long admin actions (user imports) and their progress, readable on every replica (issue 48).
            try db.execute(
                sql: """
                    CREATE TABLE admin_jobs (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        kind TEXT NOT NULL, state TEXT NOT NULL, total INTEGER NOT NULL, done INTEGER NOT NULL,
                        result TEXT, error_code TEXT, error_detail TEXT, operator_name TEXT NOT NULL,
                        created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL)
                    """)
            try db.execute(sql: "CREATE INDEX admin_jobs_tenant ON admin_jobs (tenant_id, updated_at_ms)")
        }
        migrator.registerMigration("v30-audit-checkpoints") { db in
            // Where each audit chain starts once retention pruned its head: signed (issue 48).
            try db.execute(
                sql: """
                    CREATE TABLE audit_checkpoints (chain TEXT PRIMARY KEY, sequence INTEGER NOT NULL, hash TEXT NOT NULL,
                        time_ms INTEGER NOT NULL, pruned_at_ms INTEGER NOT NULL, signature TEXT NOT NULL)
                    """)
        }
        migrator.registerMigration("v31-audit-views") { db in
            // Release history and the tenant log become views of the trail (issue 48): records
            // are found by resource id, and the legacy logs hold what came before the cutover.
            try db.execute(sql: "ALTER TABLE audit_records ADD COLUMN resource_id TEXT")
            try db.execute(sql: "UPDATE audit_records SET resource_id = json_extract(body, '$.resource.id')")
            try db.execute(
                sql: "CREATE INDEX audit_records_resource ON audit_records (chain, resource_type, resource_id, id)")
            try db.execute(sql: "CREATE TABLE audit_views (cutover_id INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO audit_views SELECT COALESCE(MAX(id), 0) FROM audit_records")
        }
        migrator.registerMigration("v32-device-sign-in-requests") { db in
            // Whether a device receives the host app's sign-in requests (issue 50's CIBA pushes).
            try db.execute(sql: "ALTER TABLE push_devices ADD COLUMN sign_in_requests INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v33-tenant-ciba") { db in
            // The tenant's CIBA settings (issue 50): unknown hints, sign-in freshness, ping destinations.
            try db.alter(table: "tenants") { t in
                t.add(column: "ciba_reveal_unknown_users", .boolean).notNull().defaults(to: false)
                t.add(column: "ciba_recent_sign_in_seconds", .integer).notNull().defaults(to: 300)
                t.add(column: "ciba_allow_private_endpoints", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v34-operator-sessions") { db in
            // Operator sign-ins have ids, and used codes and refresh tokens are remembered until
            // their sign-in ends, so a reuse ends the sign-in (RFC 9700 §4.14.2).
            try db.execute(sql: "ALTER TABLE operator_grants ADD COLUMN session_id TEXT")
            try db.execute(sql: "ALTER TABLE operator_grants ADD COLUMN used_at_ms INTEGER")
            try db.execute(sql: "ALTER TABLE operator_tokens ADD COLUMN session_id TEXT")
            try db.execute(sql: "CREATE INDEX operator_grants_session ON operator_grants (session_id)")
            try db.execute(sql: "CREATE INDEX operator_tokens_session ON operator_tokens (session_id)")
        }
        migrator.registerMigration("v35-client-default-scopes") { db in
            // Scopes per operation (issue 62): every client registered before holds, as default
            // scopes, the host app's surface its tokens could use then (sign-in requests only a
            // first-party client's); senders hold none. Live refresh families gain the same, so
            // signed-in apps keep working after the upgrade.
            let hostApp = "'[\"host\",\"miniapp-data\",\"messages\",\"devices\"]'"
            let firstParty = "'[\"host\",\"miniapp-data\",\"messages\",\"devices\",\"sign-in-requests\"]'"
            try db.execute(
                sql: """
                    UPDATE auth_clients SET document = json_set(document, '$.defaultScopes',
                        json(CASE WHEN json_extract(document, '$.firstParty') = 1 THEN \(firstParty) ELSE \(hostApp) END))
                    WHERE json_extract(document, '$.defaultScopes') IS NULL
                        AND COALESCE(json_extract(document, '$.grantTypes'), '') <> '["client_credentials"]'
                    """)
            try db.execute(
                sql: """
                    UPDATE auth_refresh_families SET scope = scope || ' host miniapp-data messages devices' ||
                        CASE WHEN EXISTS (SELECT 1 FROM auth_clients c WHERE c.tenant_id = auth_refresh_families.tenant_id
                            AND c.client_id = auth_refresh_families.client_id AND json_extract(c.document, '$.firstParty') = 1)
                        THEN ' sign-in-requests' ELSE '' END
                    WHERE revoked = 0
                    """)
        }
        migrator.registerMigration("v36-tenant-journeys") { db in
            // How people get in on their own (issue 63): one JSON object, `{}` the defaults.
            try db.execute(sql: "ALTER TABLE tenants ADD COLUMN journeys TEXT NOT NULL DEFAULT '{}'")
        }
        migrator.registerMigration("v37-tenant-courier") { db in
            // The courier's relay and SMS provider (issue 63 §4): one JSON object, secrets sealed.
            try db.execute(sql: "ALTER TABLE tenants ADD COLUMN courier TEXT NOT NULL DEFAULT '{}'")
        }
        migrator.registerMigration("v38-courier-outbox") { db in
            // The courier outbox (issue 63 §4): e-mail and SMS in one queue beside push's; the
            // recipient and the text are sealed.
            try db.execute(
                sql: """
                    CREATE TABLE courier_messages (tenant_id TEXT NOT NULL REFERENCES tenants ON DELETE CASCADE,
                        message_id TEXT NOT NULL, channel TEXT NOT NULL, purpose TEXT NOT NULL, recipient_masked TEXT NOT NULL,
                        sealed TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL, last_error TEXT,
                        next_attempt_at_ms INTEGER NOT NULL, lease_until_ms INTEGER, created_at_ms INTEGER NOT NULL,
                        expires_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL, PRIMARY KEY (tenant_id, message_id))
                    """)
            try db.execute(sql: "CREATE INDEX courier_messages_due ON courier_messages (next_attempt_at_ms) WHERE state = 'pending'")
            try db.execute(sql: "CREATE INDEX courier_messages_created ON courier_messages (tenant_id, created_at_ms)")
        }
        migrator.registerMigration("v39-user-phone") { db in
            // A user's phone number (issue 63): signs in by SMS code, looked up per tenant.
            try db.execute(sql: "ALTER TABLE auth_users ADD COLUMN phone TEXT")
            try db.execute(sql: "CREATE INDEX auth_users_phone ON auth_users (tenant_id, phone) WHERE phone IS NOT NULL")
        }
        migrator.registerMigration("v40-my-account") { db in
            // My account (issue 63 §7): which identifiers a code proved (1 the e-mail address,
            // 2 the phone number), and the `account` scope among first-party clients' defaults,
            // so host apps already registered gain it at their users' next sign-in.
            try db.execute(sql: "ALTER TABLE auth_users ADD COLUMN verified INTEGER NOT NULL DEFAULT 0")
            try db.execute(
                sql: """
                    UPDATE auth_clients SET document = json_insert(document, '$.defaultScopes[#]', 'account')
                    WHERE json_extract(document, '$.firstParty') = 1 AND json_type(document, '$.defaultScopes') = 'array'
                        AND NOT EXISTS (SELECT 1 FROM json_each(document, '$.defaultScopes') WHERE value = 'account')
                    """)
        }
        migrator.registerMigration("v41-client-consents") { db in
            // Consent (issue 63 §6): the scopes a user allowed a third-party client, one row each.
            try db.execute(
                sql: """
                    CREATE TABLE auth_client_consents (
                        tenant_id TEXT NOT NULL, subject TEXT NOT NULL, client_id TEXT NOT NULL, scope TEXT NOT NULL,
                        granted_at_ms INTEGER NOT NULL, PRIMARY KEY (tenant_id, subject, client_id, scope))
                    """)
        }
        migrator.registerMigration("v42-passkeys") { db in
            // Passkeys (issue 64): a user's WebAuthn credentials, found by credential ID at sign-in.
            try db.execute(
                sql: """
                    CREATE TABLE auth_passkeys (
                        tenant_id TEXT NOT NULL, credential_id TEXT NOT NULL, subject TEXT NOT NULL,
                        public_key TEXT NOT NULL, algorithm INTEGER NOT NULL, sign_count INTEGER NOT NULL,
                        backup_eligible INTEGER NOT NULL, backed_up INTEGER NOT NULL, aaguid TEXT NOT NULL,
                        transports TEXT NOT NULL, name TEXT NOT NULL, created_at_ms INTEGER NOT NULL,
                        last_used_at_ms INTEGER, PRIMARY KEY (tenant_id, credential_id));
                    CREATE INDEX auth_passkeys_by_subject ON auth_passkeys (tenant_id, subject);
                    """)
        }
        migrator.registerMigration("v43-tenant-passkeys") { db in
            // The tenant's WebAuthn relying party (issue 64): one JSON object, `{}` the defaults.
            try db.execute(sql: "ALTER TABLE tenants ADD COLUMN passkeys TEXT NOT NULL DEFAULT '{}'")
        }
        migrator.registerMigration("v44-link-domain-android-apps") { db in
            // A link domain's Android apps for assetlinks.json (issue 64): a JSON array.
            try db.execute(sql: "ALTER TABLE tenant_domains ADD COLUMN android_apps TEXT NOT NULL DEFAULT '[]'")
        }
        return migrator
    }
}
