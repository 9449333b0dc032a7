/// Byte classes of the ASCII grammars the gateway checks (tenant ids, flag names,
/// identifiers, storage keys, request ids), so each grammar names its classes instead of
/// spelling out ranges.
public enum ASCIIByte {
    /// `0-9`.
    public static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// `a-z`.
    public static func isLowercaseLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
    }

    /// `a-z`, `A-Z`.
    public static func isLetter(_ byte: UInt8) -> Bool {
        isLowercaseLetter(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// `a-z`, `A-Z`, `0-9`.
    public static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte)
    }

    /// `a-z`, `0-9`.
    public static func isLowercaseLetterOrDigit(_ byte: UInt8) -> Bool {
        isLowercaseLetter(byte) || isDigit(byte)
    }

    /// `0-9`, `a-f`, `A-F`.
    public static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// A visible character: `!` ... `~` (no space, no control).
    public static func isVisible(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
