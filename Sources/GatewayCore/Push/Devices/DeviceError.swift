/// What device registration refuses.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field breaks a rule (``DeviceRules``); the text says which.
    case invalid(String)
    /// The user has no device with this id.
    case notFound(deviceID: String)

    public var description: String {
        switch self {
        case .invalid(let message): message
        case .notFound(let id): "no device \(id.prefix(64)) is registered for this user"
        }
    }
}
