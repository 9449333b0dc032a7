import Foundation

/// `Accept-Language` parsing and negotiation (RFC 9110 q-values, RFC 4647 lookup).
public enum AcceptLanguage {
    /// Language ranges with q > 0, highest q first (ties keep header order); `*` kept as `*`.
    public static func parse(_ header: String) -> [(tag: String, quality: Double)] {
        var ranges: [(tag: String, quality: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").enumerated() {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = fields.first, !first.isEmpty else { continue }
            var quality = 1.0
            for parameter in fields.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                guard let value = Double(parameter.dropFirst(2)), (0 ... 1).contains(value) else { quality = -1; break }
                quality = value
            }
            guard quality > 0 else { continue }
            if first == "*" {
                ranges.append(("*", quality, order))
            } else if let tag = LocaleTag.normalize(first) {
                ranges.append((tag, quality, order))
            }
        }
        return ranges.sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.order < $1.order }.map {
            ($0.tag, $0.quality)
        }
    }

    /// The best of `available` for `header`: for each range in preference order, the
    /// range itself, then its truncations (`ja-JP` → `ja`), then an available tag that
    /// extends it (`ja` → `ja-JP`). `fallback` when nothing matches or no header is given.
    public static func negotiate(_ header: String?, available: Set<String>, fallback: String) -> String {
        guard let header else { return fallback }
        let normalized = Set(available.compactMap(LocaleTag.normalize))
        for (tag, _) in parse(header) {
            if tag == "*" { return fallback }
            var parts = tag.split(separator: "-").map(String.init)
            while !parts.isEmpty {
                let candidate = parts.joined(separator: "-")
                if normalized.contains(candidate) { return candidate }
                parts.removeLast()
            }
            if let extended = normalized.sorted().first(where: { $0.hasPrefix(tag + "-") }) { return extended }
        }
        return fallback
    }
}
