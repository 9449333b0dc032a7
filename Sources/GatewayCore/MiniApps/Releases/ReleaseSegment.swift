/// Which requests a candidate may reach: host-app versions, platforms and locales (an empty
/// set: any). A request that does not say (no `hostAppVersion`, no platform header) is
/// outside a segment that names values.
public struct ReleaseSegment: Sendable, Equatable, Codable {
    public var hostVersions: HostVersionRange?
    public var platforms: Set<ClientPlatform>
    /// Language tags, compared case-insensitively on the primary language (`ja` matches `ja-JP`).
    public private(set) var locales: Set<String>

    public init(hostVersions: HostVersionRange? = nil, platforms: Set<ClientPlatform> = [], locales: Set<String> = []) {
        self.hostVersions = hostVersions
        self.platforms = platforms
        self.locales = Set(locales.map { $0.lowercased() })
    }

    /// Whether `audience` is inside.
    public func contains(_ audience: ReleaseAudience) -> Bool {
        if let hostVersions {
            guard let version = audience.hostAppVersion, hostVersions.contains(version) else { return false }
        }
        if !platforms.isEmpty {
            guard let platform = audience.platform, platforms.contains(platform) else { return false }
        }
        if !locales.isEmpty {
            guard let locale = audience.locale?.lowercased() else { return false }
            let primary = locale.split(separator: "-").first.map(String.init) ?? locale
            guard locales.contains(locale) || locales.contains(primary) else { return false }
        }
        return true
    }
}

/// The mobile platform a host app runs on (`X-Host-Platform` request header).
public enum ClientPlatform: String, Sendable, Codable, CaseIterable {
    case ios
    case android
}

/// Host-app versions between bounds: `>=2.4 <3`, `>=2.4`, `<3.1.2`, `=2.5` (space-separated,
/// at most one lower and one upper bound). Bounds are kept parsed, so a request's check
/// compares versions without parsing the range again.
public struct HostVersionRange: Sendable, Equatable, Codable, CustomStringConvertible {
    public struct Bound: Sendable, Equatable, Codable {
        public var version: HostAppVersion
        public var inclusive: Bool

        private enum CodingKeys: String, CodingKey { case version, inclusive }

        init(version: HostAppVersion, inclusive: Bool) {
            self.version = version
            self.inclusive = inclusive
        }

        /// Stored as `{"version": "2.4", "inclusive": true}`.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let text = try container.decode(String.self, forKey: .version)
            guard let version = HostAppVersion(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .version, in: container, debugDescription: "not a host-app version: \(text.prefix(40))")
            }
            self.init(version: version, inclusive: try container.decode(Bool.self, forKey: .inclusive))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version.text, forKey: .version)
            try container.encode(inclusive, forKey: .inclusive)
        }
    }

    public var lower: Bound?
    public var upper: Bound?

    /// nil when `text` is not a range of this grammar or is empty (lower above upper included).
    public init?(_ text: String) {
        let terms = text.split(separator: " ")
        guard !terms.isEmpty, terms.count <= 2 else { return nil }
        for term in terms {
            let (op, rest): (String, Substring) =
                term.hasPrefix(">=") || term.hasPrefix("<=")
                ? (String(term.prefix(2)), term.dropFirst(2))
                : (String(term.prefix(1)), term.dropFirst(1))
            guard let version = HostAppVersion(rest) else { return nil }
            switch op {
            case ">=", ">":
                guard lower == nil else { return nil }
                lower = Bound(version: version, inclusive: op == ">=")
            case "<=", "<":
                guard upper == nil else { return nil }
                upper = Bound(version: version, inclusive: op == "<=")
            case "=":
                guard lower == nil, upper == nil, terms.count == 1 else { return nil }
                lower = Bound(version: version, inclusive: true)
                upper = Bound(version: version, inclusive: true)
            default:
                return nil
            }
        }
        if let lower, let upper {
            guard lower.version < upper.version || (lower.version == upper.version && lower.inclusive && upper.inclusive)
            else { return nil }
        }
    }

    public func contains(_ version: HostAppVersion) -> Bool {
        if let lower, !(lower.inclusive ? version >= lower.version : version > lower.version) { return false }
        if let upper, !(upper.inclusive ? version <= upper.version : version < upper.version) { return false }
        return true
    }

    /// The range as written back: `>=2.4 <3`.
    public var description: String {
        if let lower, let upper, lower == upper, lower.inclusive { return "=\(lower.version.text)" }
        let parts = [
            lower.map { ($0.inclusive ? ">=" : ">") + $0.version.text },
            upper.map { ($0.inclusive ? "<=" : "<") + $0.version.text },
        ]
        return parts.compactMap { $0 }.joined(separator: " ")
    }
}
