import GatewayCore
import GRDB

/// Internal hooks that let tests build a database file the way an older build left it.
extension SQLiteTenantStore {
    /// Applies the migrations up to and including `name`, none after it.
    func migrate(upTo name: String) throws {
        try FileLock.holding(path + ".migrate-lock") { try TenantMigrations.migrator.migrate(pool, upTo: name) }
    }

    /// Runs `sql` in one write transaction.
    func execute(sql: String) throws {
        try pool.write { db in try db.execute(sql: sql) }
    }
}

extension SQLiteTenantStore {
    /// The first column of the first row of `sql` as an integer.
    func integer(sql: String) throws -> Int64? {
        try pool.read { db in try Int64.fetchOne(db, sql: sql) }
    }
}

extension SQLiteTenantStore {
    /// The first column of every row of `sql` as text.
    func texts(sql: String) throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: sql) }
    }
}
