/// Writes ``CBOR`` in its shortest form with definite lengths, map pairs in their given
/// order: the bytes ``CBORDecoder`` read an item from, and what a test authenticator sends.
public enum CBOREncoder {
    /// The encoding of `item`.
    public static func encode(_ item: CBOR) -> [UInt8] {
        var out: [UInt8] = []
        append(item, to: &out)
        return out
    }

    private static func append(_ item: CBOR, to out: inout [UInt8]) {
        switch item {
        case .unsigned(let n):
            head(0, n, &out)
        case .negative(let n):
            head(1, n, &out)
        case .bytes(let bytes):
            head(2, UInt64(bytes.count), &out)
            out += bytes
        case .text(let text):
            head(3, UInt64(text.utf8.count), &out)
            out += text.utf8
        case .array(let items):
            head(4, UInt64(items.count), &out)
            for item in items { append(item, to: &out) }
        case .map(let pairs):
            head(5, UInt64(pairs.count), &out)
            for pair in pairs {
                append(pair.key, to: &out)
                append(pair.value, to: &out)
            }
        case .bool(let value):
            out.append(value ? 0xF5 : 0xF4)
        case .null:
            out.append(0xF6)
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, _ out: inout [UInt8]) {
        let type = major << 5
        guard argument >= 24 else {
            out.append(type | UInt8(argument))
            return
        }
        let (additional, width): (UInt8, Int) =
            switch argument {
            case ...0xFF: (24, 1)
            case ...0xFFFF: (25, 2)
            case ...0xFFFF_FFFF: (26, 4)
            default: (27, 8)
            }
        out.append(type | additional)
        for index in stride(from: width - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: argument >> (UInt64(index) * 8)))
        }
    }
}
