/// Random (version 4) UUIDs as lowercase text, from the system generator (`getrandom`).
/// Foundation's `UUID()` opens, reads and closes `/dev/urandom` for each one on Linux: three
/// system calls per code exchange, whose new refresh family is named by one (issue 32).
public enum RandomUUID {
    /// A new version 4 UUID, e.g. `1b4e28ba-2fa1-41d2-883f-0016d3cca427`.
    public static func lowercased() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        for half in 0..<2 {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.replaceSubrange(half * 8..<half * 8 + 8, with: $0) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            LowercaseHex.append(byte, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
