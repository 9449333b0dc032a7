/// Who owns a piece of per-user mini-app state: one tenant, one user (the access
/// token's `sub`), one mini app.
public struct UserMiniAppKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The tenant id.
    public var tenantID: String
    /// The user's subject (`sub`) within the tenant.
    public var userID: String
    /// The mini app id.
    public var miniAppID: String

    /// A key for `userID`'s state of `miniAppID` inside `tenantID`.
    public init(tenantID: String, userID: String, miniAppID: String) {
        self.tenantID = tenantID
        self.userID = userID
        self.miniAppID = miniAppID
    }

    /// `tenant/user/miniapp`, for logs (user ids are not secrets).
    public var description: String { "\(tenantID)/\(userID)/\(miniAppID)" }

    /// The sealing context of the secure-storage item `key` of this owner (every engine), so a
    /// sealed value moved to another row does not open.
    package func storageSealingContext(key: String) -> String {
        "securestorage:" + Self.canonical([tenantID, userID, miniAppID, key])
    }

    /// An unambiguous encoding of `parts` (length-prefixed), for sealing contexts and
    /// cache keys, so no choice of ids can make two different keys collide.
    package static func canonical(_ parts: [String]) -> String {
        parts.map { "\($0.utf8.count):\($0)" }.joined(separator: "|")
    }
}
