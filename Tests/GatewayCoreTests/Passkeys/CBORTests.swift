import TestSupport
import Testing

@testable import GatewayCore

@Suite("CBOR: strict decoding, canonical encoding, fuzzed")
struct CBORTests {
    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var digits = text.filter { !$0.isWhitespace }.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            bytes.append(UInt8(String([high, low]), radix: 16)!)
        }
        return bytes
    }

    /// RFC 8949 Appendix A's examples within the subset (no floats, no tags, no indefinite lengths).
    static let vectors: [(String, CBOR)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)),
        ("1818", .unsigned(24)), ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(.max)), ("3bffffffffffffffff", .negative(.max)),
        ("20", .int(-1)), ("29", .int(-10)), ("3863", .int(-100)), ("3903e7", .int(-1000)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
        ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        (
            "8301820203820405",
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
        ),
        ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("a0", .map([])), ("a201020304", .map([.init(.unsigned(1), .unsigned(2)), .init(.unsigned(3), .unsigned(4))])),
        (
            "a26161016162820203",
            .map([.init(.text("a"), .unsigned(1)), .init(.text("b"), .array([.unsigned(2), .unsigned(3)]))])
        ),
        ("826161a161626163", .array([.text("a"), .map([.init(.text("b"), .text("c"))])])),
    ]

    @Test("RFC 8949's examples decode to their values and encode back to the same bytes")
    func appendixA() throws {
        for (encoded, value) in Self.vectors {
            let bytes = Self.hex(encoded)
            #expect(try CBORDecoder().decode(bytes) == value, "\(encoded)")
            #expect(CBOREncoder.encode(value) == bytes, "\(encoded)")
        }
        #expect(CBOR.int(-1000).int == -1000 && CBOR.unsigned(.max).int == nil)
    }

    @Test(
        "refused: indefinite lengths, longer arguments, tags, floats, undefined, duplicate keys, bad UTF-8, truncation, trailing bytes, depth, size"
    )
    func refusals() {
        let cases: [(String, CBORError)] = [
            ("5f42010243030405ff", .indefiniteLength(at: 0)), ("9fff", .indefiniteLength(at: 0)),
            ("bf6161 01ff", .indefiniteLength(at: 0)), ("1f", .malformed(at: 0)), ("ff", .malformed(at: 0)),
            ("1c", .malformed(at: 0)), ("1817", .notShortest(at: 0)), ("190017", .notShortest(at: 0)),
            ("1a0000ffff", .notShortest(at: 0)), ("1b00000000ffffffff", .notShortest(at: 0)),
            ("5800", .notShortest(at: 0)), ("c074323031332d30332d32315432303a30343a30305a", .unsupported(at: 0)),
            ("f93c00", .unsupported(at: 0)), ("fb3ff199999999999a", .unsupported(at: 0)), ("f7", .unsupported(at: 0)),
            ("f820", .unsupported(at: 0)), ("a2010201 03", .duplicateKey(at: 3)), ("62c328", .invalidText(at: 0)),
            ("", .truncated(at: 0)), ("19 01", .truncated(at: 0)), ("44 0102", .truncated(at: 0)),
            ("5affffffff 00", .truncated(at: 0)), ("9bffffffffffffffff", .truncated(at: 0)),
            ("ba7fffffff 0000", .truncated(at: 0)), ("0000", .trailingBytes(at: 1)),
            (String(repeating: "81", count: 17) + "00", .tooDeep(at: 17)),
        ]
        for (encoded, error) in cases {
            #expect(throws: error, "\(encoded)") { try CBORDecoder().decode(Self.hex(encoded)) }
        }
        #expect(throws: CBORError.tooLarge(11)) {
            try CBORDecoder(maximumSize: 10).decode([0x4A] + Array(repeating: 0, count: 10))
        }
        #expect(throws: CBORError.truncated(at: 5)) { try CBORDecoder().decodePrefix([0], from: 5) }
        let nested = Self.hex(String(repeating: "81", count: 16) + "00")
        #expect((try? CBORDecoder().decode(nested)) != nil)
    }

    @Test("map keys in any order are read (not every authenticator sorts them); a prefix ends where its item does")
    func orderAndPrefix() throws {
        let unsorted = try CBORDecoder().decode(Self.hex("a2 6161 01 01 02"))
        #expect(unsorted["a"] == .unsigned(1) && unsorted[1] == .unsigned(2))
        let (item, end) = try CBORDecoder().decodePrefix(Self.hex("ff 820102 0a"), from: 1)
        #expect(item == .array([.unsigned(1), .unsigned(2)]) && end == 4)
    }

    @Test("fuzz: random and mutated bytes never crash, and whatever decodes re-encodes to the same bytes (seeded)")
    func fuzz() {
        var random = SeededRandom(seed: 0xC0B0_2026)
        let seeds = Self.vectors.map { Self.hex($0.0) }
        var decoded = 0
        for round in 0..<30_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            } else {
                bytes = seeds[Int.random(in: 0..<seeds.count, using: &random)]
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0 where !bytes.isEmpty:
                        bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
                            in: 0...255, using: &random)
                    case 1 where !bytes.isEmpty:
                        bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
                    default:
                        bytes.insert(
                            UInt8.random(in: 0...255, using: &random),
                            at: Int.random(in: 0...bytes.count, using: &random))
                    }
                }
            }
            guard let item = try? CBORDecoder().decode(bytes) else { continue }
            decoded += 1
            #expect(CBOREncoder.encode(item) == bytes, "\(bytes)")
        }
        // The property is exercised, not vacuous: a good share of the inputs decode.
        #expect(decoded > 1_000, "\(decoded)")
    }

    @Test("random items encode and decode back to themselves (seeded)")
    func roundTrip() throws {
        var random = SeededRandom(seed: 7)
        func item(_ depth: Int) -> CBOR {
            switch Int.random(in: 0..<(depth < 4 ? 8 : 6), using: &random) {
            case 0:
                return .unsigned(
                    UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random))
            case 1:
                return .negative(
                    UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random))
            case 2:
                return .bytes(
                    (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                )
            case 3:
                return .text(
                    String(
                        (0..<Int.random(in: 0...40, using: &random)).map { _ in "aé水😀".randomElement(using: &random)! })
                )
            case 4: return .bool(Bool.random(using: &random))
            case 5: return .null
            case 6: return .array((0..<Int.random(in: 0...5, using: &random)).map { _ in item(depth + 1) })
            default:
                var pairs: [CBOR.Pair] = []
                for index in 0..<Int.random(in: 0...5, using: &random) {
                    pairs.append(.init(.int(index - 2), item(depth + 1)))
                }
                return .map(pairs)
            }
        }
        for _ in 0..<2_000 {
            let value = item(0)
            #expect(try CBORDecoder().decode(CBOREncoder.encode(value)) == value)
        }
    }
}
