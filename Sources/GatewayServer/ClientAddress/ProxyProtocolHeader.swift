/// The PROXY protocol header (HAProxy's spec, versions 1 and 2) an L4 load balancer puts in
/// front of a connection's bytes to name the client it accepted. Parsed strictly; only the
/// source address is used.
enum ProxyProtocolHeader {
    /// What the first bytes of a connection are.
    enum Parse: Equatable {
        /// Too few bytes to tell.
        case needMore
        /// No PROXY signature: plain HTTP.
        case absent
        /// A header of `length` bytes naming `source` (nil: `UNKNOWN`, `LOCAL`, or a family
        /// without an IP address, e.g. a health check).
        case header(length: Int, source: IPAddress?)
        /// A header that breaks the spec. With a `length` it can be skipped (the peer is then
        /// the client); without one, where the HTTP bytes begin is unknown.
        case invalid(length: Int?)
    }

    static let v1Prefix = Array("PROXY ".utf8)
    /// `\r\n\r\n\0\r\nQUIT\n`.
    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// The longest version 1 line, CRLF included (the spec's bound).
    static let v1MaximumLength = 107
    /// The largest version 2 address block this server takes (addresses and TLVs).
    static let v2MaximumBlock = 1024

    static func parse(_ bytes: [UInt8]) -> Parse {
        if startsLike(bytes, v1Prefix) { return bytes.count < v1Prefix.count ? .needMore : version1(bytes) }
        if startsLike(bytes, v2Signature) { return bytes.count < 16 ? .needMore : version2(bytes) }
        return .absent
    }

    /// Whether `bytes` and `signature` agree on their common length.
    private static func startsLike(_ bytes: [UInt8], _ signature: [UInt8]) -> Bool {
        !bytes.isEmpty && zip(bytes, signature).allSatisfy { $0 == $1 }
    }

    /// `PROXY TCP4|TCP6 source destination sport dport\r\n` or `PROXY UNKNOWN …\r\n`.
    private static func version1(_ bytes: [UInt8]) -> Parse {
        let window = bytes.prefix(v1MaximumLength)
        guard let carriageReturn = window.firstIndex(of: 0x0D) else {
            return bytes.count >= v1MaximumLength ? .invalid(length: nil) : .needMore
        }
        guard carriageReturn + 1 < bytes.count else { return .needMore }
        guard bytes[carriageReturn + 1] == 0x0A else { return .invalid(length: nil) }
        let length = carriageReturn + 2
        let fields = String(decoding: bytes[..<carriageReturn], as: UTF8.self).split(
            separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2 else { return .invalid(length: length) }
        if fields[1] == "UNKNOWN" { return .header(length: length, source: nil) }
        guard fields.count == 6, fields[1] == "TCP4" || fields[1] == "TCP6",
              let source = IPAddress(fields[2]), let destination = IPAddress(fields[3]),
              source.isIPv4 == (fields[1] == "TCP4"), destination.isIPv4 == source.isIPv4,
              isPort(fields[4]), isPort(fields[5]) else { return .invalid(length: length) }
        return .header(length: length, source: source)
    }

    /// 0–65535 in decimal without leading zeros.
    private static func isPort(_ text: Substring) -> Bool {
        guard let value = Int(text), (0...65_535).contains(value), String(value) == text else { return false }
        return true
    }

    /// The signature, version/command, family/protocol, block length, then the block.
    private static func version2(_ bytes: [UInt8]) -> Parse {
        let versionCommand = bytes[12], familyProtocol = bytes[13]
        let block = Int(bytes[14]) << 8 | Int(bytes[15])
        guard versionCommand >> 4 == 2, versionCommand & 0x0F <= 1, block <= v2MaximumBlock else {
            return .invalid(length: nil)
        }
        let length = 16 + block
        guard bytes.count >= length else { return .needMore }
        // LOCAL (the balancer's own connection, e.g. a health check): the peer is the client.
        guard versionCommand & 0x0F == 1 else { return .header(length: length, source: nil) }
        switch familyProtocol >> 4 {
        case 1:  // AF_INET: source, destination (4 bytes each), ports.
            guard block >= 12 else { return .invalid(length: length) }
            return .header(length: length, source: IPAddress(bytes: Array(bytes[16..<20])))
        case 2:  // AF_INET6: 16 bytes each, ports.
            guard block >= 36 else { return .invalid(length: length) }
            return .header(length: length, source: IPAddress(bytes: Array(bytes[16..<32])))
        case 0, 3:  // AF_UNSPEC, AF_UNIX: no IP address to use.
            return .header(length: length, source: nil)
        default:
            return .invalid(length: length)
        }
    }
}
