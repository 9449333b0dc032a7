import Foundation

/// The token endpoint's device code grant (RFC 8628 §3.4-3.5).
extension OperatorAuthenticator {
    static let deviceGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Polls a device authorization: `authorization_pending` until a person approves it,
    /// `slow_down` (and 5 s more between polls) for a client polling faster than its
    /// interval, `expired_token` once it is gone; the approved one answers tokens once.
    func deviceCode(_ request: OperatorTokenRequest) async throws -> OperatorIssuedTokens {
        guard let client = OperatorRealmClient.named(request.clientID), request.secret == nil else {
            throw OperatorTokenError.invalidClient
        }
        guard let deviceCode = request.deviceCode, deviceCode.utf8.count <= 100 else {
            throw OperatorTokenError.invalidRequest("device_code is required")
        }
        let deviceHash = ClientSecret.hash(deviceCode)
        let now = clock.now()
        guard var pending = try await OperatorDeviceAuthorization.read(cache, deviceHash: deviceHash),
            pending.expiresAt > now
        else { throw OperatorTokenError.expiredToken }
        guard pending.clientID == client.id else {
            throw OperatorTokenError.invalidGrant("not this client's device code")
        }
        guard let operatorID = pending.operatorID, let method = pending.method else {
            let early = pending.lastPollAt.map { now.timeIntervalSince($0) < Double(pending.interval) } ?? false
            if early { pending.interval += 5 }
            pending.lastPollAt = now
            try await pending.write(cache, deviceHash: deviceHash, now: now)
            throw early ? OperatorTokenError.slowDown : OperatorTokenError.authorizationPending
        }
        // Answered once, whatever races: the first poll after the approval takes it.
        guard
            try await cache.setIfAbsent(
                "operator:device-taken:" + deviceHash, [1], ttl: pending.ttl(at: now) + .seconds(60))
        else { throw OperatorTokenError.invalidGrant("the device code was used") }
        _ = try await cache.delete([OperatorDeviceAuthorization.key(deviceHash: deviceHash)])
        return try await issue(
            operatorID: operatorID, clientID: client.id, method: method,
            session: pending.sessionExpiresAt.map { (id: OperatorAuthenticator.newSessionID(), expiresAt: $0) })
    }
}
