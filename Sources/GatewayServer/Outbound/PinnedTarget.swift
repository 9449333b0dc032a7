import Foundation
import NIOCore
import NIOPosix

/// Where an outbound call to a URL a client registered goes: its host resolved once, off the
/// event loops, and the address checked. The call then connects to exactly that address
/// (``hostOverride``), so a name that resolves elsewhere a moment later (DNS rebinding)
/// cannot move it onto a private address after the check. TLS still verifies the host name.
struct PinnedTarget: Sendable, Equatable {
    /// The URL's host, without brackets.
    let host: String
    let port: Int
    /// The address the call connects to.
    let address: IPAddress

    /// Maps the URL's host to the checked address (AsyncHTTPClient's `dnsOverride`).
    var hostOverride: [String: String] { [host: address.description] }

    /// Why a target was refused.
    enum Refusal: Error, Equatable {
        /// Not an absolute http(s) URL with a host.
        case malformed
        /// The host did not resolve.
        case unresolvable
        /// The host resolves to a special-purpose address and the tenant does not allow those.
        case specialPurpose(IPAddress)
    }

    /// Resolves `url`'s host (the first address the resolver gives, which is the one called)
    /// and checks it: a special-purpose address is refused unless `allowSpecialPurpose`.
    static func resolve(
        _ url: String, allowSpecialPurpose: Bool,
        resolver: @escaping @Sendable (String, Int) throws -> IPAddress? = PinnedTarget.systemResolve
    ) async throws(Refusal) -> PinnedTarget {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "https" || scheme == "http", var host = parts.host, !host.isEmpty
        else { throw .malformed }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        let address: IPAddress
        if let literal = IPAddress(host) {
            address = literal
        } else {
            let name = host
            let resolved = try? await NIOThreadPool.singleton.runIfActive { try resolver(name, port) }
            guard let found = resolved.flatMap({ $0 }) else { throw .unresolvable }
            address = found
        }
        guard allowSpecialPurpose || SpecialPurposeAddresses.isPublic(address) else {
            throw .specialPurpose(address)
        }
        return PinnedTarget(host: host, port: port, address: address)
    }

    /// The system resolver (`getaddrinfo`, blocking: called on the thread pool): the first address.
    static func systemResolve(_ host: String, _ port: Int) throws -> IPAddress? {
        try SocketAddress.makeAddressResolvingHost(host, port: port).ipAddress.flatMap { IPAddress($0) }
    }
}
