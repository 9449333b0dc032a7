/// A secure-storage write as every engine applies it: the items checked against the limits
/// and sealed under contexts bound to their owner and key, each item's size, and the rule
/// that decides whether the write fits under the cap. The engines only read the usage and
/// the replaced sizes and write the rows, in one transaction.
public struct SecureStorageWrite: Sendable {
    /// One item, sealed.
    public struct Item: Sendable {
        public let key: String
        public let sealed: String
        /// What the item counts against the cap: its key's and value's UTF-8 bytes.
        public let size: Int64
    }

    public let items: [Item]
    public let maxBytes: Int64

    /// Checks `items` against `limits` (key and value sizes, count, the cap) and seals each.
    public init(_ items: [String: String], for owner: UserMiniAppKey, maxBytes: Int64,
                limits: SecureStorageLimits, sealer: SecretSealer) throws {
        try limits.check(items: items, maxBytes: maxBytes)
        self.items = try items.map { key, value in
            Item(key: key, sealed: try sealer.seal(value, context: owner.storageSealingContext(key: key)),
                 size: Int64(key.utf8.count + value.utf8.count))
        }
        self.maxBytes = maxBytes
    }

    public var keys: [String] { items.map(\.key) }

    /// The owner's usage and item count after this write, given the usage now and the size
    /// stored under each key it replaces (nil: a new key). A write that grows the usage past
    /// the cap throws ``SecureStorageError/storageFull(used:requested:max:)``; one that keeps
    /// or shrinks it always fits (so an owner over a lowered cap can still make room).
    public func usage(
        now used: Int64, itemCount: Int64, replacing stored: (String) -> Int64?
    ) throws -> (usedBytes: Int64, itemCount: Int64) {
        var delta: Int64 = 0
        var added: Int64 = 0
        for item in items {
            let old = stored(item.key)
            delta += item.size - (old ?? 0)
            if old == nil { added += 1 }
        }
        let requested = used + delta
        if delta > 0, requested > maxBytes {
            throw SecureStorageError.storageFull(used: used, requested: requested, max: maxBytes)
        }
        return (requested, itemCount + added)
    }
}
