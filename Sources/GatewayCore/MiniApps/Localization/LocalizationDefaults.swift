import Foundation

/// The built-in English texts of the SDK's message keys (resource `localization-en.json`).
public struct LocalizationDefaults: Sendable, Equatable {
    /// Key → English text.
    public var entries: [String: String]

    public init(entries: [String: String]) {
        self.entries = entries
    }

    private struct File: Decodable {
        var entries: [String: String]
    }

    /// Loads the resource shipped with GatewayCore.
    public static func builtIn() throws -> LocalizationDefaults {
        guard let url = Bundle.module.url(forResource: "localization-en", withExtension: "json") else {
            throw LocalizationError.missingDefaults
        }
        return LocalizationDefaults(entries: try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).entries)
    }
}

/// What localization refuses.
public enum LocalizationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidLocale(String)
    case invalidKey(String)
    case invalidValue(key: String, reason: String)
    case missingDefaults

    public var description: String {
        switch self {
        case .invalidLocale(let tag): "invalid locale \"\(tag.prefix(40))\" (expected a BCP 47 tag such as ja or ja-JP)"
        case .invalidKey(let key): "invalid localization key \"\(key.prefix(80))\" (1-200 of A-Z a-z 0-9 . _ -)"
        case .invalidValue(let key, let reason): "invalid text for \(key.prefix(80)): \(reason)"
        case .missingDefaults: "the built-in localization resource localization-en.json is missing"
        }
    }

    /// Throws unless `key` is 1-200 of `A-Z a-z 0-9 . _ -`.
    public static func check(key: String) throws(LocalizationError) {
        let ok =
            (1...200).contains(key.utf8.count)
            && key.utf8.allSatisfy {
                ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 95
                    || $0 == 45
            }
        if !ok { throw .invalidKey(key) }
    }

    /// Throws unless `value` is at most 10,000 characters.
    public static func check(value: String, key: String) throws(LocalizationError) {
        if value.count > 10_000 { throw .invalidValue(key: key, reason: "longer than 10000 characters") }
    }

    /// Checks every key and value of an override batch; returns the canonical `locale`.
    public static func checkedLocale(_ locale: String, entries: [String: String]) throws(LocalizationError) -> String {
        let normalized = try Self.locale(locale)
        for (key, value) in entries {
            try check(key: key)
            try check(value: value, key: key)
        }
        return normalized
    }

    /// The canonical locale or a thrown ``invalidLocale(_:)``.
    public static func locale(_ tag: String) throws(LocalizationError) -> String {
        guard let normalized = LocaleTag.normalize(tag) else { throw .invalidLocale(tag) }
        return normalized
    }
}
