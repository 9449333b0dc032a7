/// A secret in gatewayctl JSON and the admin API's answers. Always an object saying what it holds, so a masked
/// value can never be imported as if it were the secret:
/// `{"masked":"ras-…a1b2"}`, `{"sealed":"v1:..."}` or `{"plaintext":"..."}`.
/// A bare string is read as plaintext.
public enum SecretDocument: Codable, Equatable, Sendable {
    case masked(String)
    case sealed(String)
    case plaintext(String)

    private enum Keys: String, CodingKey { case masked, sealed, plaintext }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .plaintext(text)
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        if let value = try container.decodeIfPresent(String.self, forKey: .sealed) {
            self = .sealed(value)
        } else if let value = try container.decodeIfPresent(String.self, forKey: .plaintext) {
            self = .plaintext(value)
        } else if let value = try container.decodeIfPresent(String.self, forKey: .masked) {
            self = .masked(value)
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a secret must be a string or an object with \"sealed\" or \"plaintext\""
            ))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .masked(let value): try container.encode(value, forKey: .masked)
        case .sealed(let value): try container.encode(value, forKey: .sealed)
        case .plaintext(let value): try container.encode(value, forKey: .plaintext)
        }
    }
}

/// How secrets appear in output.
public enum SecretPresentation: Sendable {
    /// `ras-…a1b2` (the default everywhere).
    case masked
    /// Sealed under the master key, bound to tenant and field (export default).
    case sealed
    /// The secret itself (`--reveal`).
    case plaintext
}

extension SecretDocument {
    /// `value` of the tenant's `field` as `presentation` shows it (masked when sealing is asked
    /// for but no sealer is at hand); nil when there is none.
    public static func presenting(
        _ value: SecretValue?, field: TenantField, tenantID: String, as presentation: SecretPresentation,
        sealer: SecretSealer?
    ) throws -> SecretDocument? {
        guard let value else { return nil }
        switch presentation {
        case .masked: return .masked(value.masked)
        case .plaintext: return .plaintext(value.plaintext)
        case .sealed:
            guard let sealer else { return .masked(value.masked) }
            return .sealed(try sealer.seal(value.plaintext, context: field.sealingContext(tenantID: tenantID)))
        }
    }
}
