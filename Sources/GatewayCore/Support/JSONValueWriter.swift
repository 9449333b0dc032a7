import Foundation

/// Writes a ``JSONValue`` as compact JSON bytes, object members sorted by their names' UTF-8
/// bytes: byte for byte what `JSONEncoder` writes with `.sortedKeys` and
/// `.withoutEscapingSlashes` (a test holds the two side by side), without its boxing of every
/// value. Every signed token's header and claims are written here; through `JSONEncoder` they
/// were 4 % of a refresh (issue 32).
struct JSONValueWriter {
    /// What was written so far.
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func write(_ value: JSONValue) throws {
        switch value {
        case .string(let string): write(string)
        case .number(let number): try write(number)
        case .bool(let bool): bytes.append(contentsOf: bool ? Self.trueBytes : Self.falseBytes)
        case .null: bytes.append(contentsOf: Self.nullBytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(member.key)
                bytes.append(UInt8(ascii: ":"))
                try write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Integral numbers below 10^15 as integers (as ``JSONValue`` encodes them); any other
    /// number as `JSONEncoder` writes it (its exponent style is its own).
    private mutating func write(_ number: Double) throws {
        if let integer = JSONValue.integer(number) {
            bytes.append(contentsOf: String(integer).utf8)
        } else {
            bytes.append(contentsOf: try JSONEncoder().encode(number))
        }
    }

    private mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case ..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                LowercaseHex.append(byte, to: &bytes)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
}
