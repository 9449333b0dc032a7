import Crypto
import Foundation

/// Unpadded base64url (RFC 4648 §5), as JOSE and PKCE use it.
///
/// Encoding and decoding work on bytes: every token the gateway issues or checks passes
/// through here several times, and the Foundation route (base64, then three
/// `replacingOccurrences`) was 6 % of a refused refresh (issue 32's profile).
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each ASCII byte's 6-bit value; 0xFF for bytes outside the alphabet. `+` and `/` (plain
    /// base64) are read like `-` and `_`, as the decoder always accepted them.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Encodes bytes without padding.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let input = bytes as? [UInt8] ?? Array(bytes)
        let count = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { output in
            var o = 0
            var i = 0
            while i + 3 <= input.count {
                let chunk = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                output[o] = alphabet[Int(chunk >> 18)]
                output[o + 1] = alphabet[Int(chunk >> 12 & 63)]
                output[o + 2] = alphabet[Int(chunk >> 6 & 63)]
                output[o + 3] = alphabet[Int(chunk & 63)]
                i += 3
                o += 4
            }
            let rest = input.count - i
            if rest > 0 {
                let chunk = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                output[o] = alphabet[Int(chunk >> 18)]
                output[o + 1] = alphabet[Int(chunk >> 12 & 63)]
                o += 2
                if rest == 2 {
                    output[o] = alphabet[Int(chunk >> 6 & 63)]
                    o += 1
                }
            }
            return o
        }
    }

    /// Decodes unpadded (or correctly padded) base64url; nil when malformed: a byte outside
    /// the alphabet, a length no encoding has, padding anywhere but at a quantum's end, or
    /// leftover bits that are not zero (so each value has exactly one encoding).
    public static func decode(_ text: some StringProtocol) -> Data? {
        var utf8 = Array(text.utf8)[...]
        if utf8.last == UInt8(ascii: "=") {
            // Padding completes the last quantum to four characters, and only that.
            guard utf8.count % 4 == 0 else { return nil }
            utf8 = utf8.dropLast()
            if utf8.last == UInt8(ascii: "=") { utf8 = utf8.dropLast() }
            guard utf8.count % 4 != 0 else { return nil }
        }
        let rest = utf8.count % 4
        guard rest != 1 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count * 3 / 4)
        var chunk: UInt32 = 0
        var filled = 0
        for byte in utf8 {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            chunk = chunk << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                bytes.append(UInt8(chunk >> 16))
                bytes.append(UInt8(chunk >> 8 & 0xFF))
                bytes.append(UInt8(chunk & 0xFF))
                chunk = 0
                filled = 0
            }
        }
        switch filled {
        case 2:
            guard chunk & 0xF == 0 else { return nil }
            bytes.append(UInt8(chunk >> 4))
        case 3:
            guard chunk & 0x3 == 0 else { return nil }
            bytes.append(UInt8(chunk >> 10))
            bytes.append(UInt8(chunk >> 2 & 0xFF))
        default:
            break
        }
        return Data(bytes)
    }

    /// Whether `text` is what ``encode(_:)`` writes for `byteCount` bytes: that many
    /// characters, each of the base64url alphabet (no padding, no `+` or `/`).
    public static func isEncoding(_ text: String, ofByteCount byteCount: Int) -> Bool {
        text.utf8.count == (byteCount * 4 + 2) / 3
            && text.utf8.allSatisfy { byte in
                values[Int(byte)] != 0xFF && byte != UInt8(ascii: "+") && byte != UInt8(ascii: "/")
            }
    }

    /// The SHA-256 digest of `text`'s UTF-8, base64url-encoded: PKCE S256, JWK thumbprints,
    /// DPoP `ath`, and the stored hashes of codes, tokens and secrets.
    public static func sha256(_ text: String) -> String {
        encode(SHA256.hash(data: Data(text.utf8)))
    }

    /// `n` random bytes, base64url-encoded (tokens, codes, ids).
    public static func random(byteCount n: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: n)
        var i = 0
        while i < n {
            var word = generator.next()
            for _ in 0..<min(8, n - i) {
                bytes[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return encode(bytes)
    }
}
