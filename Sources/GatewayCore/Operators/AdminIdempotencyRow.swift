/// How both engines read a stored `Idempotency-Key` (status 0: claimed, unfinished).
package enum AdminIdempotencyRow {
    package static func claim(
        fingerprint: String, status: Int, etag: String?, body: String?, requested: String
    ) -> IdempotencyClaim {
        guard fingerprint == requested else { return .mismatch }
        guard status != 0 else { return .inProgress }
        return .replay(IdempotentResponse(status: status, etag: etag, body: body ?? ""))
    }
}
