import GatewayCore
import GRDB

/// `tenant_audit` rows through GRDB.
extension TenantAuditRecord: FetchableRecord, MutablePersistableRecord {
    package static let databaseTableName = "tenant_audit"

    package mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
