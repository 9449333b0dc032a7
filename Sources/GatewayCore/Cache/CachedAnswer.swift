import Crypto
import Foundation

/// A cached gateway answer: the serialized response bytes (served as stored) plus the
/// metadata cache-aside needs. `status` is 200 for a body, or the 4xx of a negative
/// answer whose `body` is the problem `code` (UTF-8).
public struct CachedAnswer: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// Strong entity tag of `body`, quoted.
    public var etag: String
    /// Wall-clock milliseconds since 1970 (shared across replicas).
    public var storedAt: Int64
    /// Fresh until this instant; then stale-while-revalidate until ``staleUntil``.
    public var freshUntil: Int64
    public var staleUntil: Int64
    /// A stale copy may stand in for an upstream failure until this instant.
    public var errorUntil: Int64

    public init(
        status: Int, body: [UInt8], etag: String? = nil, storedAt: Int64, freshUntil: Int64, staleUntil: Int64,
        errorUntil: Int64
    ) {
        self.status = status
        self.body = body
        self.etag = etag ?? Self.etag(for: body)
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        self.staleUntil = staleUntil
        self.errorUntil = errorUntil
    }

    /// `"` + 16 bytes of SHA-256 in hex + `"`.
    public static func etag(for body: [UInt8]) -> String {
        let digest = SHA256.hash(data: body)
        return "\"" + LowercaseHex.string(digest.prefix(16)) + "\""
    }

    /// Wall clock in milliseconds.
    public static func now() -> Int64 {
        StoreClock.milliseconds(Date())
    }
}
