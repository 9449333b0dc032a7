import Foundation

/// A resolved deep link: which mini app to open and what to pass it.
public struct DeepLink: Sendable, Equatable, Codable {
    public var miniAppID: String
    /// The raw (still percent-encoded) query, nil when the link has none.
    public var query: String?
    /// The raw fragment, nil when the link has none.
    public var fragment: String?

    public init(miniAppID: String, query: String?, fragment: String?) {
        self.miniAppID = miniAppID
        self.query = query
        self.fragment = fragment
    }
}

/// Why a URL is not a deep link of the tenant.
public enum DeepLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAURL
    case notHTTPS
    case unknownHost(String)
    case notAMiniAppPath(String)
    case invalidMiniAppID(String)

    public var description: String {
        switch self {
        case .notAURL: "not an absolute URL"
        case .notHTTPS: "deep links use https"
        case .unknownHost(let host): "host \(host.prefix(80)) is not a domain of this tenant"
        case .notAMiniAppPath(let path): "path \(path.prefix(80)) is not /miniapp/{id}"
        case .invalidMiniAppID(let id): "\"\(id.prefix(80))\" is not a valid mini app id"
        }
    }
}

/// Maps `https://{tenant domain}/miniapp/{ID}?q#f` (the mini-app SDKs' deep-link shape)
/// to a ``DeepLink``. Anything else is a ``DeepLinkError``.
public enum DeepLinkResolver {
    /// Resolves `url` against the tenant's hosts (lowercase).
    public static func resolve(_ url: String, tenantHosts: Set<String>) throws(DeepLinkError) -> DeepLink {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host,
            !host.isEmpty
        else {
            throw .notAURL
        }
        guard scheme.lowercased() == "https" else { throw .notHTTPS }
        guard components.user == nil, components.password == nil, components.port == nil || components.port == 443,
              tenantHosts.contains(host.lowercased())
        else { throw .unknownHost(host) }
        let path = components.percentEncodedPath
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count == 2 || (segments.count == 3 && segments.last == ""), segments.first == "miniapp" else {
            throw .notAMiniAppPath(path)
        }
        let id = String(segments[segments.startIndex + 1])
        guard isValidMiniAppID(id) else { throw .invalidMiniAppID(id) }
        return DeepLink(
            miniAppID: id, query: components.percentEncodedQuery, fragment: components.percentEncodedFragment)
    }

    /// 1-128 of letters, digits, `-`, `_`, `.` (not only dots).
    public static func isValidMiniAppID(_ id: String) -> Bool {
        (1 ... 128).contains(id.utf8.count) && id.contains(where: { $0 != "." })
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
    }
}
