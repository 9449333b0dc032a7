import Foundation

extension AdminService {
    /// Acts once per `key` (the `Idempotency-Key`; nil: no key, act every time): a repeated
    /// request gets the first answer with `replayed`, a different request under the same key
    /// is refused, and a failed call leaves the key free for a retry.
    public func once(
        _ call: AdminCall, key: String?, fingerprint: String, _ act: () async throws -> IdempotentResponse
    ) async throws -> (response: IdempotentResponse, replayed: Bool) {
        guard let key else { return (try await act(), false) }
        guard AdminIdempotency.isValidKey(key) else {
            throw AdminError.badRequest("Idempotency-Key is 1-255 visible ASCII characters")
        }
        let operatorID = call.session.caller.id
        let now = clock.now()
        switch try await idempotency.claim(
            operatorID: operatorID, key: key, fingerprint: fingerprint, now: now,
            leaseUntil: now.addingTimeInterval(AdminIdempotency.lease))
        {
        case .replay(let response): return (response, true)
        case .inProgress: throw AdminError.idempotencyInProgress
        case .mismatch: throw AdminError.idempotencyKeyReused
        case .claimed: break
        }
        let response: IdempotentResponse
        do {
            response = try await act()
        } catch {
            try? await idempotency.abandon(operatorID: operatorID, key: key)
            throw error
        }
        try await idempotency.complete(
            operatorID: operatorID, key: key, response: response,
            keepUntil: clock.now().addingTimeInterval(AdminIdempotency.keep))
        return (response, false)
    }
}
