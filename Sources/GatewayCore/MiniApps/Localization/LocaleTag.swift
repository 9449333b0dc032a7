/// BCP 47 language tags as the gateway stores and compares them: `ja`, `ja-JP`,
/// `zh-Hant-TW` (language lowercase, script titlecase, region uppercase).
public enum LocaleTag {
    /// The last resort of every fallback chain.
    public static let english = "en"

    /// The canonical form of `tag` (`_` accepted for `-`), or nil when it is not a
    /// plausible tag: a 2-3 letter language, then subtags of 1-8 letters/digits.
    public static func normalize(_ tag: String) -> String? {
        let parts = tag.replacingOccurrences(of: "_", with: "-").split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(isASCIILetter) else {
            return nil
        }
        var result = [language.lowercased()]
        for part in parts.dropFirst() {
            guard (1...8).contains(part.count), part.allSatisfy({ isASCIILetter($0) || $0.isASCII && $0.isNumber })
            else { return nil }
            if part.count == 4, part.allSatisfy(isASCIILetter) {
                result.append(part.prefix(1).uppercased() + part.dropFirst().lowercased())
            } else if part.count == 2, part.allSatisfy(isASCIILetter) {
                result.append(part.uppercased())
            } else {
                result.append(part.lowercased())
            }
        }
        return result.joined(separator: "-")
    }

    /// `ja-JP` → `[ja-JP, ja, <tenant default chain>, en]`, without repeats.
    /// Unparseable inputs are skipped.
    public static func fallbackChain(for tag: String, tenantDefault: String?) -> [String] {
        var chain: [String] = []
        func add(_ value: String) {
            var parts = value.split(separator: "-").map(String.init)
            while !parts.isEmpty {
                let candidate = parts.joined(separator: "-")
                if !chain.contains(candidate) { chain.append(candidate) }
                parts.removeLast()
            }
        }
        if let tag = normalize(tag) { add(tag) }
        if let tenantDefault, let normalized = normalize(tenantDefault) { add(normalized) }
        add(english)
        return chain
    }

    private static func isASCIILetter(_ c: Character) -> Bool { c.isASCII && c.isLetter }
}
