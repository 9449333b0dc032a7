/// Bytes as lowercase hexadecimal digits, two per byte: digests in ETags and cache keys, keyed
/// digests, UUIDs, JSON's `\u00XX` escapes. (`String(format: "%02x")` per byte went through
/// Foundation's formatter once per byte.)
public enum LowercaseHex {
    /// `bytes` as text, e.g. `[0x0f, 0xa0]` → `0fa0`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes { append(byte, to: &text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends the two digits of `byte` to `text`.
    public static func append(_ byte: UInt8, to text: inout [UInt8]) {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }

    private static let digits = Array("0123456789abcdef".utf8)
}
