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

    /// The templates above without their `/t/{tenant}` prefix, split into segments.
    private static let publicTails = list.map { PathTemplate(String($0.path.dropFirst(tenantPrefix.count))) }
    private static let protectedTails = protectedOutsideAPI.map { PathTemplate(String($0.dropFirst(tenantPrefix.count))) }
    private static let tenantPrefix = "/t/{tenant}"

    /// Whether a request needs a token: under `/t/{tenant}/v1/` (or a protected OAuth path)
    /// and not listed public. Runs on every request, so it compares the path's bytes in
    /// place, without allocating.
    static func requiresToken(method: String, path: String) -> Bool {
        var path = path
        return path.withUTF8(requiresToken)
    }

    private static func requiresToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.starts(with: "/t/".utf8) else { return false }
        guard let slash = bytes[3...].firstIndex(of: PathTemplate.slash), slash > 3 else { return false }
        let tail = UnsafeBufferPointer(rebasing: bytes[slash...])
        if protectedTails.contains(where: { $0.matches(tail) }) { return true }
        guard tail.elementsEqual("/v1".utf8) || tail.starts(with: "/v1/".utf8) else { return false }
        // A public path stays public under every method, so undeclared methods reach
        // routing and answer 405 instead of 401.
        return !publicTails.contains { $0.matches(tail) }
    }
}

/// A path template such as `/v1/localizations/{locale}`: a `{name}` segment matches any one
/// non-empty segment, the others match their bytes.
private struct PathTemplate: Sendable {
    static let slash = UInt8(ascii: "/")
    /// Each segment after the leading `/`: its bytes, or nil for a `{name}` segment.
    let segments: [[UInt8]?]

    init(_ template: String) {
        segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? nil : Array(segment.utf8)
        }
    }

    /// Whether `path` (starting with `/`) has exactly these segments.
    func matches(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard path.first == Self.slash else { return false }
        var start = 1
        for (index, expected) in segments.enumerated() {
            let end = path[start...].firstIndex(of: Self.slash) ?? path.endIndex
            guard (index == segments.count - 1) == (end == path.endIndex) else { return false }
            let segment = UnsafeBufferPointer(rebasing: path[start..<end])
            if let expected {
                guard segment.elementsEqual(expected) else { return false }
            } else if segment.isEmpty {
                return false
            }
            start = end + 1
        }
        return true
    }
}
