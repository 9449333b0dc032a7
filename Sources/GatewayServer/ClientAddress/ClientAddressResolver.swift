import HTTPTypes

/// Decides who the client of a request is: the TCP peer (or, on a PROXY protocol
/// connection, the address its header named), unless that is a trusted proxy; then the
/// right-most hop of `Forwarded` (or, without it, `X-Forwarded-For`) that is not a trusted
/// proxy. From any other peer those headers are ignored, so spoofing them changes nothing.
/// A header that cannot be used leaves the peer as the client and is counted.
public struct ClientAddressResolver: Sendable {
    public let trusted: TrustedProxies
    /// Told the header and why its hops were not used.
    let onRefusal: @Sendable (_ header: String, _ reason: ForwardedHops.Refusal) -> Void

    static let forwardedHeader = HTTPField.Name("Forwarded")!
    static let xForwardedForHeader = HTTPField.Name("X-Forwarded-For")!

    public init(trusted: TrustedProxies) {
        self.init(trusted: trusted) { _, _ in }
    }

    init(trusted: TrustedProxies, onRefusal: @escaping @Sendable (String, ForwardedHops.Refusal) -> Void) {
        self.trusted = trusted
        self.onRefusal = onRefusal
    }

    /// Whether `peer`'s forwarding headers are believed.
    public func trusts(_ peer: IPAddress?) -> Bool {
        guard let peer, !trusted.isEmpty else { return false }
        return trusted.contains(peer)
    }

    /// The client address of a request from `peer` with `headers`.
    func resolve(peer: IPAddress, headers: HTTPFields) -> IPAddress {
        guard trusts(peer) else { return peer }
        do throws(ForwardedHops.Refusal) {
            let hops: [ForwardedHops.Hop]
            if let value = headers.value(of: Self.forwardedHeader) {
                hops = try ForwardedHops.forwarded(value)
            } else if let value = headers.value(of: Self.xForwardedForHeader) {
                hops = try ForwardedHops.xForwardedFor(value)
            } else {
                return peer
            }
            return try client(of: hops) ?? peer
        } catch {
            onRefusal(headers.value(of: Self.forwardedHeader) != nil ? "forwarded" : "x-forwarded-for", error)
            return peer
        }
    }

    /// The right-most hop that is not a trusted proxy (the left-most when all are). A hidden
    /// client hop is refused: it cannot be throttled apart from the proxy.
    private func client(of hops: [ForwardedHops.Hop]) throws(ForwardedHops.Refusal) -> IPAddress? {
        var found: IPAddress?
        for hop in hops.reversed() {
            guard case .address(let address) = hop else { throw .hidden }
            found = address
            if !trusted.contains(address) { return address }
        }
        return found
    }
}
