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

    /// The templates above, split into segments once.
    private static let publicTemplates = list.map { segments($0.path) }
    private static let protectedTemplates = protectedOutsideAPI.map(segments)

    /// Whether a request needs a token: under `/t/{tenant}/v1/` (or a protected OAuth path)
    /// and not listed public. Runs on every request: one split, no other allocation.
    static func requiresToken(method: String, path: String) -> Bool {
        let actual = segments(path)
        // "", "t", tenant, ...
        guard actual.count >= 4, actual[1] == "t" else { return false }
        if protectedTemplates.contains(where: { matches($0, actual) }) { return true }
        guard actual[3] == "v1" else { return false }
        // A public path stays public under every method, so undeclared methods reach
        // routing and answer 405 instead of 401.
        return !publicTemplates.contains { matches($0, actual) }
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// Segment-wise match where a `{name}` segment of `template` matches any one non-empty segment.
    private static func matches(_ template: [Substring], _ actual: [Substring]) -> Bool {
        guard template.count == actual.count else { return false }
        return zip(template, actual).allSatisfy { pattern, segment in
            pattern == segment || (pattern.first == "{" && pattern.last == "}" && !segment.isEmpty)
        }
    }
}
