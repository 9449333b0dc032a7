import Foundation

/// Users' secure-storage use in a tenant as operators read it (`gatewayctl storage usage
/// --json`, one page of the admin API).
public struct StorageUsageReport: Sendable, Codable, Equatable {
    public var tenant: String
    /// The tenant's cap per user and mini app.
    public var maxBytes: Int64
    public var usage: [SecureStorageUsage]
    /// The cursor of the next page (the admin API only).
    public var next: String?

    public init(tenant: String, maxBytes: Int64, usage: [SecureStorageUsage], next: String? = nil) {
        self.tenant = tenant
        self.maxBytes = maxBytes
        self.usage = usage
        self.next = next
    }

    /// A page's cursor after `row`: its user, `/`, its mini app (mini-app ids hold no `/`).
    public static func cursor(after row: SecureStorageUsage) -> String {
        row.userID + "/" + row.miniAppID
    }

    /// The user and mini app a cursor names: split at its last `/`; a cursor without one names
    /// a user, and the page starts at that user's first mini app.
    public static func position(_ cursor: String) -> (userID: String, miniAppID: String) {
        guard let slash = cursor.lastIndex(of: "/") else { return (cursor, "") }
        return (String(cursor[..<slash]), String(cursor[cursor.index(after: slash)...]))
    }
}

/// What a wipe of one user's storage for a mini app reports.
public struct StorageWipeReport: Sendable, Codable, Equatable {
    public var tenant: String
    public var user: String
    public var miniApp: String
    public var deletedItems: Int

    public init(tenant: String, user: String, miniApp: String, deletedItems: Int) {
        self.tenant = tenant
        self.user = user
        self.miniApp = miniApp
        self.deletedItems = deletedItems
    }
}
