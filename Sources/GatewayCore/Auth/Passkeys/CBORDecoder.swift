/// Reads CBOR strictly: the subset ``CBOR`` holds, encoded as CTAP2's canonical form demands
/// of authenticators (definite lengths, shortest-form arguments), no duplicate map keys,
/// nesting and size bounded. Map keys are not required in canonical order: authenticators
/// in the field do not all sort them, and the order does not change a map's meaning.
public struct CBORDecoder: Sendable {
    /// The deepest nesting accepted (a COSE key in an attestation object is at depth 2).
    public var maximumDepth: Int
    /// The longest input accepted, in bytes.
    public var maximumSize: Int

    public init(maximumDepth: Int = 16, maximumSize: Int = 64 * 1_024) {
        self.maximumDepth = maximumDepth
        self.maximumSize = maximumSize
    }

    /// The one item `bytes` holds; anything after it is an error.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw .trailingBytes(at: end) }
        return item
    }

    /// The item starting at `offset`, and the offset just past it (the authenticator data
    /// holds a COSE key followed by more bytes).
    public func decodePrefix(_ bytes: [UInt8], from offset: Int) throws(CBORError) -> (item: CBOR, end: Int) {
        guard bytes.count <= maximumSize else { throw .tooLarge(bytes.count) }
        guard offset >= 0, offset <= bytes.count else { throw .truncated(at: offset) }
        var reader = Reader(bytes: bytes, offset: offset, maximumDepth: maximumDepth)
        let item = try reader.item(depth: 0)
        return (item, reader.offset)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        let maximumDepth: Int

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            let start = offset
            guard depth <= maximumDepth else { throw .tooDeep(at: start) }
            let initial = try byte()
            let major = initial >> 5
            let additional = initial & 0x1F
            if major == 7 { return try simple(additional, at: start) }
            guard additional != 31 else {
                // Indefinite lengths exist for strings, arrays and maps only.
                throw (2...5).contains(major) ? .indefiniteLength(at: start) : .malformed(at: start)
            }
            let argument = try self.argument(additional, at: start)
            switch major {
            case 0:
                return .unsigned(argument)
            case 1:
                return .negative(argument)
            case 2:
                return .bytes(try take(argument, at: start))
            case 3:
                let raw = try take(argument, at: start)
                guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidText(at: start) }
                return .text(text)
            case 4:
                // Each item takes a byte at least: a count past the input is a truncation.
                let count = try count(argument, at: start)
                var items: [CBOR] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try count(argument, at: start, bytesEach: 2)
                var pairs: [CBOR.Pair] = []
                pairs.reserveCapacity(count)
                var keys = Set<CBOR>()
                for _ in 0..<count {
                    let keyStart = offset
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key).inserted else { throw .duplicateKey(at: keyStart) }
                    pairs.append(CBOR.Pair(key, try item(depth: depth + 1)))
                }
                return .map(pairs)
            default:
                // Major type 6: a tag.
                throw .unsupported(at: start)
            }
        }

        private mutating func simple(_ additional: UInt8, at start: Int) throws(CBORError) -> CBOR {
            switch additional {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 28...31: throw .malformed(at: start)
            default: throw .unsupported(at: start)
            }
        }

        private mutating func argument(_ additional: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            let width: Int
            switch additional {
            case 0..<24: return UInt64(additional)
            case 24: width = 1
            case 25: width = 2
            case 26: width = 4
            case 27: width = 8
            default: throw .malformed(at: start)
            }
            var value: UInt64 = 0
            for byte in try take(UInt64(width), at: start) { value = value << 8 | UInt64(byte) }
            let smallest: UInt64 = width == 1 ? 24 : 1 << (UInt64(width) * 4)
            guard value >= smallest else { throw .notShortest(at: start) }
            return value
        }

        private func count(_ argument: UInt64, at start: Int, bytesEach: UInt64 = 1) throws(CBORError) -> Int {
            let left = UInt64(bytes.count - offset)
            guard argument <= left / bytesEach else { throw .truncated(at: start) }
            return Int(argument)
        }

        private mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(at: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        private mutating func take(_ length: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
            guard length <= UInt64(bytes.count - offset) else { throw .truncated(at: start) }
            let end = offset + Int(length)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }
}
