#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address parsed strictly from its text: no host names, no zone ids
/// (`fe80::1%eth0`), no leading zeros tricks. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
/// what a dual-stack socket reports for an IPv4 peer) is the IPv4 address it maps.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }

    /// Parses dotted IPv4 or IPv6 text; nil for anything else.
    public init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        let string = String(text)
        if string.utf8.contains(UInt8(ascii: ":")) {
            var address = in6_addr()
            guard inet_pton(AF_INET6, string, &address) == 1 else { return nil }
            self.init(ipv6: withUnsafeBytes(of: &address) { Array($0) })
        } else {
            var address = in_addr()
            guard inet_pton(AF_INET, string, &address) == 1 else { return nil }
            self.init(ipv4: withUnsafeBytes(of: &address) { Array($0) })
        }
    }

    /// An address from its bytes (4 or 16); nil for another length.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self.init(ipv4: bytes)
        case 16: self.init(ipv6: bytes)
        default: return nil
        }
    }

    private init(ipv4: [UInt8]) {
        bytes = ipv4
    }

    private init(ipv6: [UInt8]) {
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        bytes = ipv6.prefix(12).elementsEqual(mappedPrefix) ? Array(ipv6.suffix(4)) : ipv6
    }

    /// The canonical text (`inet_ntop`): what logs, metrics and counters key on.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer {
                inet_ntop(family, raw.baseAddress, $0.baseAddress, socklen_t($0.count))
            }
        }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
