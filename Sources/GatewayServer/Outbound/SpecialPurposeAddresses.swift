/// The address blocks a call to a URL that a client registered must not reach unless its
/// tenant allows it: private, shared, loopback, link-local, documentation, benchmarking,
/// multicast and reserved space (IANA's special-purpose registries, RFC 6890 and successors),
/// plus the IPv6 forms that carry an IPv4 address inside (NAT64, 6to4, Teredo).
/// IPv4-mapped IPv6 addresses are their IPv4 address already (``IPAddress``).
enum SpecialPurposeAddresses {
    static let blocks: [CIDRBlock] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
        "2002::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
    ].compactMap { CIDRBlock($0) }

    /// Whether `address` is in none of the blocks: a public unicast address.
    static func isPublic(_ address: IPAddress) -> Bool {
        !blocks.contains { $0.contains(address) }
    }
}
