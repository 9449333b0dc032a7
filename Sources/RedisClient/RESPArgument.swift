/// One binary-safe argument of a Redis command.
///
/// Created from string or integer literals, or from raw bytes with ``bytes(_:)``:
/// `client.send("SET", "key", .bytes(payload), "EX", 10)`.
public struct RESPArgument: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// The raw bytes sent to the server.
    public var bytes: [UInt8]

    /// Wraps raw bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The UTF-8 encoding of `string`.
    public init(_ string: String) {
        self.bytes = Array(string.utf8)
    }

    /// The decimal representation of `integer`.
    public init(_ integer: some BinaryInteger) {
        self.bytes = Array(String(integer).utf8)
    }

    /// Creates an argument from a string literal (UTF-8).
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Creates an argument from an integer literal (decimal).
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Wraps raw bytes.
    public static func bytes(_ bytes: [UInt8]) -> RESPArgument {
        RESPArgument(bytes: bytes)
    }
}
