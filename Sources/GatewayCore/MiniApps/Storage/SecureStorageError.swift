/// What secure storage refuses. Descriptions name keys and sizes, never values.
public enum SecureStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The write would pass the cap; nothing was written. `requested` = usage after the write.
    case storageFull(used: Int64, requested: Int64, max: Int64)
    /// No item with this key.
    case notFound(key: String)
    /// A key is empty, too long, or holds a NUL character.
    case invalidKey(key: String, reason: String)
    /// A value alone is larger than the cap.
    case valueTooLarge(key: String, bytes: Int, max: Int64)
    /// More items in one write or delete than allowed.
    case tooManyItems(count: Int, max: Int)

    /// Error code for API bodies: `storage_full`, `not_found`, `invalid_key`, `value_too_large`, `too_many_items`.
    public var code: String {
        switch self {
        case .storageFull: "storage_full"
        case .notFound: "not_found"
        case .invalidKey: "invalid_key"
        case .valueTooLarge: "value_too_large"
        case .tooManyItems: "too_many_items"
        }
    }

    public var description: String {
        switch self {
        case .storageFull(let used, let requested, let max):
            "storage full: the write needs \(requested) bytes, the cap is \(max) (\(used) used); nothing was written"
        case .notFound(let key): "no item with key \"\(key)\""
        case .invalidKey(let key, let reason): "invalid key \"\(key.prefix(64))\": \(reason)"
        case .valueTooLarge(let key, let bytes, let max):
            "value of \"\(key.prefix(64))\" is \(bytes) bytes, more than the cap of \(max)"
        case .tooManyItems(let count, let max): "\(count) items in one request, at most \(max) allowed"
        }
    }
}

/// Limits on keys and requests, checked before any storage is touched.
public struct SecureStorageLimits: Sendable, Equatable {
    /// Longest key, UTF-8 bytes.
    public var maxKeyBytes: Int
    /// Most items per put or delete.
    public var maxItemsPerRequest: Int

    public init(maxKeyBytes: Int = 256, maxItemsPerRequest: Int = 1_000) {
        self.maxKeyBytes = maxKeyBytes
        self.maxItemsPerRequest = maxItemsPerRequest
    }

    /// Throws unless `key` is 1...maxKeyBytes UTF-8 bytes without NUL.
    public func check(key: String) throws(SecureStorageError) {
        let bytes = key.utf8.count
        if bytes == 0 { throw .invalidKey(key: key, reason: "must not be empty") }
        if bytes > maxKeyBytes { throw .invalidKey(key: key, reason: "\(bytes) bytes, at most \(maxKeyBytes)") }
        if key.utf8.contains(0) { throw .invalidKey(key: key, reason: "must not contain NUL") }
    }

    /// Checks a put: item count, keys, and each value against `maxBytes`.
    public func check(items: [String: String], maxBytes: Int64) throws(SecureStorageError) {
        try check(count: items.count)
        for (key, value) in items {
            try check(key: key)
            let bytes = value.utf8.count
            if Int64(bytes) > maxBytes { throw .valueTooLarge(key: key, bytes: bytes, max: maxBytes) }
        }
    }

    /// Checks the number of items in one request.
    public func check(count: Int) throws(SecureStorageError) {
        if count > maxItemsPerRequest { throw .tooManyItems(count: count, max: maxItemsPerRequest) }
    }
}
