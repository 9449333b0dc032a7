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

    /// The templates above without their `/t/{tenant}` prefix.
    private static let publicTails = list.map { String($0.path.dropFirst(tenantPrefix.count)) }
    private static let protectedTails = protectedOutsideAPI.map { String($0.dropFirst(tenantPrefix.count)) }
    private static let tenantPrefix = "/t/{tenant}"

    /// Whether a request needs a token: under `/t/{tenant}/v1/` (or a protected OAuth path)
    /// and not listed public. Runs on every request, so it walks the path's bytes without
    /// allocating.
    static func requiresToken(method: String, path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.starts(with: "/t/".utf8) else { return false }
        let tenantStart = bytes.index(bytes.startIndex, offsetBy: 3)
        guard let slash = bytes[tenantStart...].firstIndex(of: UInt8(ascii: "/")), slash > tenantStart else { return false }
        let tail = path[slash...]
        if protectedTails.contains(where: { matches($0, tail) }) { return true }
        guard tail == "/v1" || tail.hasPrefix("/v1/") else { return false }
        // A public path stays public under every method, so undeclared methods reach
        // routing and answer 405 instead of 401.
        return !publicTails.contains { matches($0, tail) }
    }

    /// Segment-wise match where a `{name}` segment of `template` matches any one non-empty segment.
    private static func matches(_ template: String, _ actual: Substring) -> Bool {
        let slash = UInt8(ascii: "/")
        var pattern = template.utf8[...]
        var rest = actual.utf8[...]
        while true {
            let patternEnd = pattern.firstIndex(of: slash) ?? pattern.endIndex
            let restEnd = rest.firstIndex(of: slash) ?? rest.endIndex
            let expected = pattern[..<patternEnd]
            let segment = rest[..<restEnd]
            if expected.first == UInt8(ascii: "{") && expected.last == UInt8(ascii: "}") {
                if segment.isEmpty { return false }
            } else if !expected.elementsEqual(segment) {
                return false
            }
            let patternDone = patternEnd == pattern.endIndex
            let restDone = restEnd == rest.endIndex
            if patternDone || restDone { return patternDone && restDone }
            pattern = pattern[pattern.index(after: patternEnd)...]
            rest = rest[rest.index(after: restEnd)...]
        }
    }
}
