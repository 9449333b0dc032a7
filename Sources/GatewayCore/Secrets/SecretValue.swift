/// A secret held in memory (subscription key, API key).
///
/// Its `description`, `debugDescription` and string interpolation show only a masked
/// form, so a secret that reaches a log line or CLI table stays unreadable. Read
/// ``plaintext`` on purpose where the secret is really needed (an upstream header).
/// Encoding writes the plaintext: only seal-aware stores and `--reveal` exports encode it.
public struct SecretValue: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself. Never log it.
    public let plaintext: String

    public init(_ plaintext: String) {
        self.plaintext = plaintext
    }

    public init(from decoder: any Decoder) throws {
        plaintext = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(plaintext)
    }

    /// `ras-…a1b2`: the first four characters when they are a well-known prefix, then the
    /// last four. Secrets of eight characters or fewer show no characters at all.
    public var masked: String {
        let characters = Array(plaintext)
        guard characters.count > 8 else { return "••••" }
        let prefix = plaintext.hasPrefix("ras-") ? "ras-" : ""
        return prefix + "…" + String(characters.suffix(4))
    }

    public var description: String { masked }
    public var debugDescription: String { "SecretValue(\(masked))" }
}
