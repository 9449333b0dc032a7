/// Expiration of a key written with `SET`.
public enum RedisExpiration: Sendable, Hashable {
    /// `EX seconds`.
    case seconds(Int)
    /// `PX milliseconds`.
    case milliseconds(Int)
}

/// Condition under which `SET` writes the key.
public enum RedisSetCondition: Sendable, Hashable {
    /// Always write (no flag).
    case always
    /// `NX`: only write when the key does not exist.
    case ifNotExists
    /// `XX`: only write when the key already exists.
    case ifExists
}
