import Foundation

/// A bounded least-recently-used map with per-entry expiry. Not thread-safe by itself:
/// ``MemoryCache`` guards it with a mutex.
struct LRUStore: ~Copyable {
    private final class Node {
        let key: String
        var value: [UInt8]
        var expiresAt: ContinuousClock.Instant
        var newer: Node?
        weak var older: Node?

        init(key: String, value: [UInt8], expiresAt: ContinuousClock.Instant) {
            self.key = key
            self.value = value
            self.expiresAt = expiresAt
        }
    }

    private var nodes: [String: Node] = [:]
    private var newest: Node?
    private var oldest: Node?
    private(set) var totalBytes = 0
    let maxEntries: Int
    let maxBytes: Int

    init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = max(1, maxEntries)
        self.maxBytes = max(1, maxBytes)
    }

    var count: Int { nodes.count }

    /// The live value for `key`, marking it most recently used; expired entries are dropped.
    mutating func value(for key: String, now: ContinuousClock.Instant) -> [UInt8]? {
        guard let node = nodes[key] else { return nil }
        guard node.expiresAt > now else {
            remove(node)
            return nil
        }
        moveToNewest(node)
        return node.value
    }

    /// When `key` expires, without touching its recency.
    func expiry(for key: String) -> ContinuousClock.Instant? {
        nodes[key]?.expiresAt
    }

    mutating func insert(_ key: String, _ value: [UInt8], expiresAt: ContinuousClock.Instant) {
        if let node = nodes[key] {
            totalBytes += value.count - node.value.count
            node.value = value
            node.expiresAt = expiresAt
            moveToNewest(node)
        } else {
            let node = Node(key: key, value: value, expiresAt: expiresAt)
            nodes[key] = node
            totalBytes += value.count
            link(node)
        }
        evictOverflow()
    }

    @discardableResult
    mutating func removeValue(for key: String) -> [UInt8]? {
        guard let node = nodes[key] else { return nil }
        remove(node)
        return node.value
    }

    private mutating func evictOverflow() {
        while nodes.count > maxEntries || (totalBytes > maxBytes && nodes.count > 1), let victim = oldest {
            remove(victim)
        }
    }

    private mutating func link(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private mutating func unlink(_ node: Node) {
        if let older = node.older { older.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { newer.older = node.older } else { newest = node.older }
        node.newer = nil
        node.older = nil
    }

    private mutating func moveToNewest(_ node: Node) {
        guard newest !== node else { return }
        unlink(node)
        link(node)
    }

    private mutating func remove(_ node: Node) {
        unlink(node)
        nodes[node.key] = nil
        totalBytes -= node.value.count
    }
}
