/// The peers whose `Forwarded` / `X-Forwarded-For` headers and PROXY protocol headers are
/// believed (`--trusted-proxies`). Empty by default: nobody is trusted, the TCP peer is
/// the client.
public struct TrustedProxies: Sendable, Equatable {
    public let blocks: [CIDRBlock]

    public init(_ blocks: [CIDRBlock] = []) {
        self.blocks = blocks
    }

    /// Parses a comma-separated list of CIDR blocks or addresses (white space around items
    /// ignored). Throws naming the first item that is not one.
    public init(parsing list: String) throws(InvalidBlock) {
        var blocks: [CIDRBlock] = []
        for item in list.split(separator: ",") {
            let trimmed = item.trimmingBlanks
            if trimmed.isEmpty { continue }
            guard let block = CIDRBlock(trimmed) else { throw InvalidBlock(text: String(trimmed)) }
            blocks.append(block)
        }
        self.blocks = blocks
    }

    /// An item of the list that is not an address or a CIDR block.
    public struct InvalidBlock: Error, Equatable {
        public let text: String
    }

    public var isEmpty: Bool { blocks.isEmpty }

    public func contains(_ address: IPAddress) -> Bool {
        blocks.contains { $0.contains(address) }
    }
}
