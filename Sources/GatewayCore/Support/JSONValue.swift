import Foundation

/// A JSON value, for JOSE headers and claim sets whose members vary.
public enum JSONValue: Sendable, Equatable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral
{
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: JSONValue])
    case array([JSONValue])
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .number(let n):
            if let integer = Self.integer(n) { try c.encode(integer) } else { try c.encode(n) }
        case .bool(let b): try c.encode(b)
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        case .null: try c.encodeNil()
        }
    }

    /// The string, when this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The number as Int64, when this is an integral number.
    public var int64Value: Int64? {
        if case .number(let n) = self { Self.integer(n) } else { nil }
    }

    /// `number` as an integer when it is integral and below 10^15 (written without a fraction).
    static func integer(_ number: Double) -> Int64? {
        number == number.rounded() && abs(number) < 1e15 ? Int64(number) : nil
    }
    /// The number, when this is one.
    public var doubleValue: Double? { if case .number(let n) = self { n } else { nil } }
    /// A string as a one-element list, the strings of an array, else none (JWT `aud`, `scp`).
    public var strings: [String] {
        switch self {
        case .string(let one): [one]
        case .array(let many): many.compactMap(\.stringValue)
        default: []
        }
    }
    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// Sorted-key compact JSON bytes (``JSONValueWriter``: what `JSONEncoder` writes with
    /// `.sortedKeys` and `.withoutEscapingSlashes`).
    public func encoded() throws -> Data {
        var writer = JSONValueWriter()
        try writer.write(self)
        return Data(writer.bytes)
    }

    /// Parses JSON bytes.
    public static func decode(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }
}
