import Foundation

/// One row of `tenant_audit`, as every engine stores it.
package struct TenantAuditRecord: Codable {
    package var id: Int64?
    package var tenantID: String
    package var action: String
    /// JSON array of field names.
    package var changedFields: String
    package var actor: String
    package var atMs: Int64
    package var configVersion: Int64

    enum CodingKeys: String, CodingKey {
        case id, action, actor
        case tenantID = "tenant_id"
        case changedFields = "changed_fields"
        case atMs = "at_ms"
        case configVersion = "config_version"
    }

    package init(
        tenantID: String, action: TenantAuditAction, fields: [TenantField], actor: String, at: Date,
        configVersion: Int64
    ) {
        self.tenantID = tenantID
        self.action = action.rawValue
        let names = fields.map(\.rawValue)
        let json = (try? JSONEncoder().encode(names)).flatMap { String(data: $0, encoding: .utf8) }
        self.changedFields = json ?? "[]"
        self.actor = actor
        self.atMs = StoreClock.milliseconds(at)
        self.configVersion = configVersion
    }

    package var entry: TenantAuditEntry {
        let fields = (try? JSONDecoder().decode([String].self, from: Data(changedFields.utf8))) ?? []
        return TenantAuditEntry(
            id: id ?? 0, tenantID: tenantID, action: action, changedFields: fields,
            actor: actor, at: StoreClock.date(atMs), configVersion: configVersion
        )
    }
}

/// What an audit row records.
public enum TenantAuditAction: String, Sendable, CaseIterable {
    case create, update, suspend, resume, delete, `import`
}
