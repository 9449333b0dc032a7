import Foundation

/// A tenant's WebAuthn relying party (issue 64): the RP ID passkeys are bound to and the
/// origins besides the hosted pages' own that ceremonies may come from. By default the RP ID
/// is the host of the tenant's public URL (the issuer) and only the hosted pages' origin is
/// allowed; a tenant with its own domain names it here and lists its apps' origins.
public struct PasskeySettings: Sendable, Equatable, Codable {
    /// The RP ID (a domain name, `localhost` included; nil: the host of the tenant's public URL).
    /// Passkeys are bound to it: changing it strands the ones already made.
    public var rpId: String?
    /// Origins allowed besides the hosted pages': `https://host[:port]` of the tenant's web
    /// apps, and Android apps as Credential Manager presents them
    /// (`android:apk-key-hash:<base64url SHA-256 of the signing certificate>`). iOS apps present
    /// `https://<RP ID>`, which the RP ID's own origin covers.
    public var origins: [String]

    /// How many extra origins a tenant lists at most.
    public static let maximumOrigins = 20
    /// The Android origin's prefix.
    public static let androidOriginPrefix = "android:apk-key-hash:"

    public init(rpId: String? = nil, origins: [String] = []) {
        self.rpId = rpId
        self.origins = origins
    }

    /// Missing members take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            rpId: try container.decodeIfPresent(String.self, forKey: .rpId),
            origins: try container.decodeIfPresent([String].self, forKey: .origins) ?? [])
    }

    /// The relying party of a tenant whose public URL (its issuer) is `issuer`: the RP ID set
    /// here or the issuer's host, and the issuer's origin, the RP ID's own `https` origin and
    /// the listed ones.
    public func relyingParty(issuer: String) -> RelyingParty {
        let (publicOrigin, publicHost) = Self.origin(of: issuer)
        let id = rpId ?? publicHost
        var allowed = Set(origins)
        if let publicOrigin { allowed.insert(publicOrigin) }
        allowed.insert("https://\(id)")
        return RelyingParty(id: id, origins: allowed)
    }

    /// The origin (`scheme://host[:port]`) and host of a URL, lowercased.
    static func origin(of url: String) -> (origin: String?, host: String) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host?.lowercased(), !host.isEmpty
        else { return (nil, "localhost") }
        let port = parts.port.map { ":\($0)" } ?? ""
        return ("\(scheme)://\(host)\(port)", host)
    }

    /// What is wrong, each a problem that follows the field's name.
    public var problems: [TenantValidationError] {
        var found: [TenantValidationError] = []
        if let rpId, !Self.isDomain(rpId) {
            found.append(
                TenantValidationError(
                    field: .passkeysRPId, problem: "must be a lowercase domain name such as example.com (no scheme, port or path)"))
        }
        if origins.count > Self.maximumOrigins {
            found.append(TenantValidationError(field: .passkeysOrigins, problem: "names at most \(Self.maximumOrigins) origins"))
        }
        if let repeated = origins.firstRepeated() {
            found.append(TenantValidationError(field: .passkeysOrigins, problem: "names \(repeated.prefix(100)) twice"))
        }
        if let wrong = origins.first(where: { !Self.isOrigin($0) }) {
            found.append(
                TenantValidationError(
                    field: .passkeysOrigins,
                    problem: "names \(wrong.prefix(100)), which is neither https://host[:port], "
                        + "http://localhost[:port] nor \(Self.androidOriginPrefix)<base64url SHA-256>"))
        }
        return found
    }

    /// A lowercase domain name of 1-253 characters whose labels are 1-63 letters, digits and
    /// inner hyphens (an IP address is not an RP ID).
    static func isDomain(_ text: String) -> Bool {
        guard (1...253).contains(text.count), !text.allSatisfy({ $0.isNumber || $0 == "." }) else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
    }

    /// `https://host[:port]` with a domain host and nothing after, `http://localhost[:port]`
    /// (browsers treat it as secure: development), or an Android app's origin.
    static func isOrigin(_ text: String) -> Bool {
        if text.hasPrefix(androidOriginPrefix) {
            let hash = text.dropFirst(androidOriginPrefix.count)
            return Base64URL.isEncoding(String(hash), ofByteCount: 32)
        }
        let scheme = text.hasPrefix("https://") ? "https://" : text.hasPrefix("http://localhost") ? "http://" : nil
        guard text.count <= 200, let scheme else { return false }
        let authority = text.dropFirst(scheme.count)
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard isDomain(String(parts[0])), scheme == "https://" || parts[0] == "localhost" else { return false }
        guard parts.count == 2 else { return true }
        return Int(parts[1]).map { (1...65535).contains($0) && String($0) == parts[1] } ?? false
    }
}
