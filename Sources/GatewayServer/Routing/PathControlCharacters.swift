import GatewayCore

/// The edge's refusal of control characters in a request's path (issue 62 §2): a path whose
/// percent-decoded text holds one (`/admin/v1/tenants/globex%00`) answers 400 before routing,
/// on both listeners, so no identifier reaches a handler, a store or the audit trail with one.
/// Both contracts say so: every path parameter has a pattern that excludes them.
enum PathControlCharacters {
    /// Whether the raw (percent-encoded) `path` decodes to text with a control character.
    static func held(in path: String) -> Bool {
        var utf8 = path.utf8[...]
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 < 0x20 || $0 == 0x7F }) else { return false }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(utf8.count)
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                decoded.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                decoded.append(byte)
            }
        }
        return ControlCharacters.held(in: String(decoding: decoded, as: UTF8.self))
    }

    /// The refusal: 400 `invalid_request`, naming the rule.
    static func refusal() -> GatewayProblem {
        GatewayProblem.invalidRequest(
            "The path holds a control character (U+0000-U+001F, U+007F-U+009F): no id or name may hold one.")
    }
}
