/// The hops a request passed through, as a proxy chain writes them: RFC 7239 `Forwarded`
/// (`for=` of each element) or `X-Forwarded-For`, client first, nearest proxy last.
enum ForwardedHops {
    /// One hop: an address, or a node the proxy would not name (`unknown`, an obfuscated
    /// `_identifier`, an element without `for=`).
    enum Hop: Equatable, Sendable {
        case address(IPAddress)
        case hidden
    }

    /// Why a header's hops were not used.
    enum Refusal: String, Error, Equatable, CaseIterable {
        /// Not the header's grammar, or a node that is not an IP address (e.g. a zone id).
        case malformed
        /// More than ``maximumHops`` hops, or longer than ``maximumLength`` bytes.
        case tooLong = "too_long"
        /// The client's hop is `unknown` or obfuscated: nothing to tell it from the proxy.
        case hidden = "hidden_hop"
    }

    /// More hops than any real proxy chain has.
    static let maximumHops = 32
    static let maximumLength = 4096

    /// The hops of a `Forwarded` value (several fields already joined by commas).
    static func forwarded(_ value: String) throws(Refusal) -> [Hop] {
        guard value.utf8.count <= maximumLength else { throw .tooLong }
        let elements = try split(value, on: ",")
        guard elements.count <= maximumHops else { throw .tooLong }
        return try elements.map { element throws(Refusal) -> Hop in
            var node: Substring?
            for pair in try split(element, on: ";") {
                let pair = pair.trimmingBlanks
                if pair.isEmpty { continue }
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { throw .malformed }
                guard pair[..<equals].lowercased() == "for" else { continue }
                guard node == nil else { throw .malformed }
                node = try unquoted(pair[pair.index(after: equals)...])
            }
            guard let node else { return .hidden }
            return try hop(node)
        }
    }

    /// The hops of an `X-Forwarded-For` value.
    static func xForwardedFor(_ value: String) throws(Refusal) -> [Hop] {
        guard value.utf8.count <= maximumLength else { throw .tooLong }
        let items = value.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= maximumHops else { throw .tooLong }
        return try items.map { item throws(Refusal) -> Hop in try hop(item.trimmingBlanks) }
    }

    /// `1.2.3.4`, `1.2.3.4:80`, `2001:db8::1`, `[2001:db8::1]`, `[2001:db8::1]:80`,
    /// `unknown` or `_obfuscated`.
    static func hop(_ node: Substring) throws(Refusal) -> Hop {
        if node.lowercased() == "unknown" || node.first == "_" { return .hidden }
        var host = node
        if node.first == "[" {
            guard let close = node.firstIndex(of: "]") else { throw .malformed }
            host = node[node.index(after: node.startIndex)..<close]
            try port(node[node.index(after: close)...])
        } else if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") {
            host = node[..<colon]
            try port(node[colon...])
        }
        guard let address = IPAddress(host) else { throw .malformed }
        return .address(address)
    }

    /// Nothing, or `:` and 1–5 digits (a port, or an obfuscated `_port`).
    private static func port(_ rest: Substring) throws(Refusal) {
        guard !rest.isEmpty else { return }
        let digits = rest.dropFirst()
        guard rest.first == ":", !digits.isEmpty, digits.count <= 16,
              digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isLetter || $0 == "_") }) else { throw .malformed }
    }

    /// A token, or a quoted string without escapes (no address needs one).
    private static func unquoted(_ value: Substring) throws(Refusal) -> Substring {
        guard value.first == "\"" else {
            guard !value.isEmpty, !value.contains(where: { $0 == "\"" || $0 == "\\" || $0 == " " }) else {
                throw .malformed
            }
            return value
        }
        guard value.count >= 2, value.last == "\"" else { throw .malformed }
        let inner = value.dropFirst().dropLast()
        guard !inner.contains(where: { $0 == "\"" || $0 == "\\" }) else { throw .malformed }
        return inner
    }

    /// `value` split on `separator` outside quoted strings; an unclosed quote is malformed.
    private static func split(_ value: some StringProtocol, on separator: Character) throws(Refusal) -> [Substring] {
        let text = Substring(value)
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        for index in text.indices {
            let character = text[index]
            if character == "\"" { quoted.toggle() }
            if character == separator, !quoted {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        guard !quoted else { throw .malformed }
        parts.append(text[start...])
        return parts
    }
}
