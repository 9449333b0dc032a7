/// An address block such as `10.0.0.0/8`, `2001:db8::/32` or one address (`127.0.0.1`
/// is `127.0.0.1/32`). IPv4 blocks match IPv4 peers, including IPv4-mapped IPv6 ones.
public struct CIDRBlock: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// Parses `address[/prefix]`; nil when either part is malformed, the prefix is longer
    /// than the family allows, or bits are set past the prefix (`10.0.0.1/8` is a typo).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maximum = address.bytes.count * 8
        var prefix = maximum
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maximum).contains(length), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            prefix = length
        }
        guard Self.masked(address.bytes, prefix) == address.bytes else { return nil }
        network = address
        prefixLength = prefix
    }

    /// Compares byte by byte in place (read for every request from a trusted peer).
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        for index in network.bytes.indices {
            let kept = Self.keptBits(ofByte: index, prefix: prefixLength)
            if kept == 0 { return true }
            if address.bytes[index] & Self.mask(kept) != network.bytes[index] { return false }
        }
        return true
    }

    public var description: String { "\(network)/\(prefixLength)" }

    /// `bytes` with every bit past the first `prefix` cleared.
    private static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.indices.map { bytes[$0] & mask(keptBits(ofByte: $0, prefix: prefix)) }
    }

    /// How many leading bits of byte `index` a `prefix` covers (0...8).
    private static func keptBits(ofByte index: Int, prefix: Int) -> Int { min(8, max(0, prefix - index * 8)) }

    /// A byte with its first `kept` bits set.
    private static func mask(_ kept: Int) -> UInt8 { kept == 8 ? 0xFF : ~(UInt8(0xFF) >> kept) }
}
