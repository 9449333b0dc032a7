/// Why a consent update was refused (nothing was stored).
public enum ConsentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `unknown`: names that are no custom permission; `undeclared`: known names the
    /// mini app's manifest does not request. Both sorted.
    case invalidPermissions(unknown: [String], undeclared: [String])
    /// The user has never used this mini app (it is not in their list).
    case notUsed(miniAppID: String)

    public var description: String {
        switch self {
        case .invalidPermissions(let unknown, let undeclared):
            var parts: [String] = []
            if !unknown.isEmpty { parts.append("unknown permissions: " + unknown.joined(separator: ", ")) }
            if !undeclared.isEmpty {
                parts.append("permissions the mini app does not declare: " + undeclared.joined(separator: ", "))
            }
            return parts.joined(separator: "; ")
        case .notUsed(let miniAppID):
            return "The user has not used mini app \(miniAppID.prefix(128))."
        }
    }
}
