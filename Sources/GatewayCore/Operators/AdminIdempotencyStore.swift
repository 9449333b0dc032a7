import Crypto
import Foundation

/// The answer an acting admin call gave, kept under its `Idempotency-Key` so a retry gets
/// the same answer instead of acting twice.
public struct IdempotentResponse: Sendable, Equatable {
    public var status: Int
    public var etag: String?
    /// The response body, JSON.
    public var body: String

    public init(status: Int, etag: String?, body: String) {
        self.status = status
        self.etag = etag
        self.body = body
    }
}

/// What claiming an `Idempotency-Key` found.
public enum IdempotencyClaim: Sendable, Equatable {
    /// The key is new (or its record expired): act, then complete or abandon it.
    case claimed
    /// The same request finished before: answer this again.
    case replay(IdempotentResponse)
    /// The same request is being acted on now (another replica, a retry too early).
    case inProgress
    /// The key was used for a different request.
    case mismatch
}

/// `Idempotency-Key`s of acting admin calls (release actions; later sends, creates,
/// rotations), per operator, in the database every replica shares: a retry through another
/// replica finds the first answer. Records expire (``AdminIdempotency``'s windows).
public protocol AdminIdempotencyStore: Sendable {
    /// Claims `key` of `operatorID` for a request with `fingerprint` until `leaseUntil`
    /// (an unfinished claim then lapses); drops the operator's expired records.
    func claim(operatorID: String, key: String, fingerprint: String, now: Date, leaseUntil: Date) async throws
        -> IdempotencyClaim
    /// Keeps the answer of a claimed key until `keepUntil`.
    func complete(operatorID: String, key: String, response: IdempotentResponse, keepUntil: Date) async throws
    /// Gives an unfinished claim up (the call failed: a retry acts again).
    func abandon(operatorID: String, key: String) async throws
}

/// The windows and rules of admin idempotency keys.
public enum AdminIdempotency {
    /// How long an answer is replayed.
    public static let keep: TimeInterval = 24 * 3600
    /// How long a claim whose call never finished (a crashed replica) blocks the key.
    public static let lease: TimeInterval = 60
    /// The fingerprint of a request's canonical text (SHA-256, hex).
    public static func fingerprint(_ canonical: String) -> String {
        LowercaseHex.string(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// Keys are 1-255 visible ASCII characters.
    public static func isValidKey(_ key: String) -> Bool {
        (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
