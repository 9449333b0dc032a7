/// Operations under `/t/{tenant}/v1/` that need no access token. Everything else there
/// (and `/oauth2/userinfo`) requires one. A test checks this list against the operations
/// of `OpenAPI/gateway.yaml` that declare `security: []`.
enum PublicOperations {
    /// (method, path template) pairs.
    static let list: [(method: String, path: String)] = [
        ("GET", "/t/{tenant}/v1/host-config"),
        ("GET", "/t/{tenant}/v1/localizations/{locale}"),
        ("GET", "/t/{tenant}/v1/links/resolve"),
    ]

    /// Protected path templates outside `/v1/`.
    static let protectedOutsideAPI: [String] = ["/t/{tenant}/oauth2/userinfo"]

    /// Whether a request needs a token: under `/t/{tenant}/v1/` (or a protected OAuth path) and not listed public.
    static func requiresToken(method: String, path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // "", "t", tenant, ...
        guard segments.count >= 4, segments[1] == "t" else { return false }
        let template = (["", "t", "{tenant}"] + segments.dropFirst(3).map(String.init)).joined(separator: "/")
        if protectedOutsideAPI.contains(template) { return true }
        guard segments[3] == "v1" else { return false }
        // A public path stays public under every method, so undeclared methods reach
        // routing and answer 405 instead of 401.
        return !list.contains { matches(template: $0.path, path: template) }
    }

    /// Segment-wise match where a `{name}` segment of `template` matches any one non-empty segment.
    static func matches(template: String, path: String) -> Bool {
        let expected = template.split(separator: "/", omittingEmptySubsequences: false)
        let actual = path.split(separator: "/", omittingEmptySubsequences: false)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).allSatisfy { pattern, segment in
            pattern == segment || (pattern.hasPrefix("{") && pattern.hasSuffix("}") && !segment.isEmpty)
        }
    }
}
