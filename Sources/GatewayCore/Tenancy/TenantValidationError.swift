/// One invalid field: `"<field> <problem>"`, a single line.
///
/// The CLI replaces the field name with its flag (`--platform-url must be an absolute
/// http(s) URL, got "ftp://x"`).
public struct TenantValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The offending field.
    public var field: TenantField
    /// What is wrong, phrased to follow the field name (`must be ...`).
    public var problem: String

    public init(field: TenantField, problem: String) {
        self.field = field
        self.problem = problem
    }

    public var description: String { "\(field.rawValue) \(problem)" }

    /// A value quoted for an error message: one line, control characters escaped,
    /// long values shortened so a 10k-character value stays readable.
    public static func quote(_ value: String, limit: Int = 60) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars.prefix(limit) {
            escaped += scalar.properties.generalCategory == .control || scalar == "\"" || scalar == "\\"
                ? scalar.escaped(asASCII: true) : String(scalar)
        }
        let more = value.unicodeScalars.count > limit ? "… (\(value.count) characters)" : ""
        return "\"\(escaped)\"\(more)"
    }
}
