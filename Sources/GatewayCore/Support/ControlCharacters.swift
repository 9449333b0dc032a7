/// Control characters (Unicode general category Cc: U+0000–U+001F, U+007F–U+009F) in
/// identifiers (issue 62 §2). No name, id or key the gateway stores may hold one: GRDB binds
/// a Swift `String` to SQLite as a C string (`sqlite3_bind_text` with length -1) and reads it
/// back with `String(cString:)`, so a U+0000 cuts the value short, and PostgreSQL's `text`
/// refuses U+0000 outright. The edges refuse them in paths (400 before routing), the
/// services treat an identifier holding one as unknown, and the audit trail's filter
/// columns keep a visible form of them (``visible(_:)``).
public enum ControlCharacters {
    /// Whether `scalar` is a control character (category Cc).
    @inline(__always)
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }

    /// Whether `text` holds any control character.
    public static func held(in text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with each control character replaced by U+FFFD (the replacement character):
    /// what a text column of either engine can hold and a filter can still find.
    public static func visible(_ text: String) -> String {
        guard held(in: text) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isControl(scalar) ? "\u{FFFD}" : scalar) }
        return String(scalars)
    }
}
