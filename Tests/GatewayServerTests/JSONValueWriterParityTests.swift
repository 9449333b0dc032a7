import Foundation
import GatewayCore
import TestSupport
import Testing

/// Issue 32: signed tokens' headers and claims are written by `JSONValueWriter`, not by
/// `JSONEncoder`; both must give the same bytes, or a token's signing input would change.
@Suite("JSON values written by hand, side by side with JSONEncoder")
struct JSONValueWriterParityTests {
    static func foundation(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    @Test("claims as the token service writes them")
    func claims() throws {
        let claims: JSONValue = .object([
            "iss": "https://gw.example/t/acme", "sub": "user-1", "aud": "https://gw.example/t/acme/v1",
            "iat": .number(1_764_000_000), "exp": .number(1_764_000_900), "scope": "openid profile",
            "cnf": .object(["jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"]), "auth_time": .number(-1),
            "amr": .array(["pwd", "otp"]), "email_verified": true, "nonce": .null, "ratio": .number(0.25),
        ])
        #expect(try claims.encoded() == Self.foundation(claims))
    }

    @Test("5,000 random values agree (seeded): escapes, Unicode, key order, numbers, nesting")
    func randomValues() throws {
        var random = SeededRandom(seed: 20_261_127)
        let pieces = [
            "a", "B", "z", "Z", "_", "0", "9", "10", "é", "😀", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{c}",
            "\u{1}", "\u{1f}", "\u{7f}", "\u{2028}", " ", "kid", "KID",
        ]
        func string() -> String {
            (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        func number() -> Double {
            switch random.next() % 5 {
            case 0: Double(Int64(bitPattern: random.next()) % 2_000_000_000_000_000)
            case 1: Double(Int64(bitPattern: random.next()) % 1_000)
            case 2: Double(random.next() % 1_000_000) / 1_000
            case 3: -Double(random.next() % 1_000_000) * 1e12
            default: Double(bitPattern: random.next() & 0x3FFF_FFFF_FFFF_FFFF)
            }
        }
        func value(depth: Int) -> JSONValue {
            switch random.next() % (depth > 2 ? 4 : 6) {
            case 0: .string(string())
            case 1: .number(number())
            case 2: random.next() % 2 == 0 ? .bool(random.next() % 2 == 0) : .null
            case 3: .string(string())
            case 4: .array((0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) })
            default:
                .object(
                    Dictionary(
                        (0..<Int(random.next() % 6)).map { _ in (string(), value(depth: depth + 1)) },
                        uniquingKeysWith: { first, _ in first }))
            }
        }
        for _ in 0..<5_000 {
            let sample = value(depth: 0)
            let expected = try Self.foundation(sample)
            let written = try sample.encoded()
            #expect(written == expected, "\(String(decoding: expected, as: UTF8.self))")
            if written != expected { return }
        }
    }

    @Test("a number JSON cannot hold is refused, as JSONEncoder refuses it")
    func notFinite() {
        #expect(throws: (any Error).self) { try JSONValue.array([.number(.infinity)]).encoded() }
        #expect(throws: (any Error).self) { try JSONValue.object(["x": .number(.nan)]).encoded() }
    }
}
