/// A value of the Redis serialization protocol (RESP2), as sent by the server.
public enum RESPValue: Sendable, Equatable {
    /// A status reply such as `+OK` or `+PONG`.
    case simpleString(String)
    /// An error reply such as `-WRONGTYPE Operation against a key holding the wrong kind of value`.
    case error(String)
    /// An integer reply (`:42`).
    case integer(Int64)
    /// A binary-safe bulk string (`$3\r\nfoo`). May contain NUL bytes and `\r\n`.
    case bulkString([UInt8])
    /// A null bulk string or null array (`$-1` / `*-1`).
    case null
    /// An array reply, possibly nested.
    case array([RESPValue])
}

extension RESPValue {
    /// The bytes of a bulk or simple string, `nil` for any other kind of value.
    public var bytes: [UInt8]? {
        switch self {
        case .bulkString(let bytes): return bytes
        case .simpleString(let string): return Array(string.utf8)
        default: return nil
        }
    }

    /// A bulk or simple string decoded as UTF-8 (invalid sequences are repaired), `nil` otherwise.
    public var string: String? {
        switch self {
        case .bulkString(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .simpleString(let string): return string
        default: return nil
        }
    }

    /// The value of an integer reply, `nil` for any other kind of value.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements of an array reply, `nil` for any other kind of value.
    public var array: [RESPValue]? {
        if case .array(let values) = self { return values }
        return nil
    }
}

extension RESPValue: CustomStringConvertible {
    /// A short, human-readable rendering used in error messages and logs.
    public var description: String {
        switch self {
        case .simpleString(let string): return "+\(string)"
        case .error(let message): return "-\(message)"
        case .integer(let value): return ":\(value)"
        case .null: return "(nil)"
        case .bulkString(let bytes):
            let prefix = bytes.prefix(64)
            let text = String(decoding: prefix, as: UTF8.self)
            return "\"\(text)\(bytes.count > 64 ? "…" : "")\" (\(bytes.count) bytes)"
        case .array(let values):
            return "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}
