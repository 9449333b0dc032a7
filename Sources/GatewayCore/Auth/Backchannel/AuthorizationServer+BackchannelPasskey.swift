import Foundation

/// A passkey answering a sign-in request's ceremony (issue 64): the credential as
/// `PublicKeyCredential.toJSON()` gives it (nil: what was sent is no such credential, refused
/// like a wrong one), and the tenant's relying party that checks it.
public struct BackchannelPasskeyAnswer: Sendable {
    public var credential: AuthenticationResponseJSON?
    public var ceremonies: PasskeyCeremonies
    public var party: RelyingParty

    public init(credential: AuthenticationResponseJSON?, ceremonies: PasskeyCeremonies, party: RelyingParty) {
        self.credential = credential
        self.ceremonies = ceremonies
        self.party = party
    }
}

/// Approving a sign-in request with a passkey (issue 64): the host app asks for the options of
/// one request, the user's authenticator answers them, and the approval carries the answer
/// (``answerBackchannel(tenantID:subject:id:approve:authTime:totp:password:passkey:address:settings:)``).
/// The ceremony belongs to the request and its user: one live ceremony per request (asking
/// again replaces it), used once, living as long as any passkey ceremony.
extension AuthorizationServer {
    /// The request options for approving request `id` of `subject` with one of the user's
    /// passkeys, and when the challenge expires.
    /// - Throws: ``BackchannelError/notFound``, ``BackchannelError/alreadyAnswered``, and
    ///   ``BackchannelError/stepUpRequired(_:)`` when the user holds no passkey.
    public func beginBackchannelPasskey(
        tenantID: String, subject: String, id: String, ceremonies: PasskeyCeremonies, party: RelyingParty
    ) async throws -> (options: RequestOptionsJSON, expiresAt: Date) {
        _ = try await pendingBackchannelRequest(tenantID: tenantID, subject: subject, id: id)
        guard try await !ceremonies.store.passkeys(tenantID: tenantID, subject: subject).isEmpty else {
            throw BackchannelError.stepUpRequired("this user holds no passkey: step up with the TOTP code or password")
        }
        let (token, options) = try await ceremonies.beginAuthentication(
            party: party, tenantID: tenantID, subject: subject)
        try await cache.set(
            Self.backchannelPasskeyKey(tenantID: tenantID, id: id), Array(token.utf8), ttl: PasskeyCeremonies.lifetime)
        return (options, clock.now().addingTimeInterval(TimeInterval(PasskeyCeremonies.lifetime.components.seconds)))
    }

    /// The user's passkey that answers request `id`'s ceremony, verified and its counter moved.
    /// The ceremony is spent whatever the outcome.
    /// - Throws: ``BackchannelError/stepUpFailed`` (no ceremony, another user's passkey, a
    ///   check that failed) or ``BackchannelError/passkeyCounterWentBack(stored:received:)``.
    func backchannelPasskey(
        _ answer: BackchannelPasskeyAnswer, tenantID: String, subject: String, id: String
    ) async throws -> StoredPasskey {
        guard let token = try await cache.take(Self.backchannelPasskeyKey(tenantID: tenantID, id: id)),
            let credential = answer.credential
        else { throw BackchannelError.stepUpFailed }
        do {
            let passkey = try await answer.ceremonies.finishAuthentication(
                token: String(decoding: token, as: UTF8.self), tenantID: tenantID, answer: credential,
                party: answer.party)
            guard passkey.subject == subject else { throw BackchannelError.stepUpFailed }
            return passkey
        } catch PasskeyCeremonyError.refused(.counterWentBack(let stored, let received), _) {
            throw BackchannelError.passkeyCounterWentBack(stored: stored, received: received)
        } catch is PasskeyCeremonyError {
            throw BackchannelError.stepUpFailed
        }
    }

    /// The pending request `id` of `subject`, not yet answered.
    /// - Throws: ``BackchannelError/notFound`` or ``BackchannelError/alreadyAnswered``.
    func pendingBackchannelRequest(tenantID: String, subject: String, id: String) async throws -> BackchannelRequest {
        guard id.utf8.count <= 64, let request = try await backchannel.request(tenantID: tenantID, id: id),
            request.subject == subject, request.expiresAt > clock.now()
        else { throw BackchannelError.notFound }
        guard try await backchannel.answer(tenantID: tenantID, id: id) == nil else {
            throw BackchannelError.alreadyAnswered
        }
        return request
    }

    private static func backchannelPasskeyKey(tenantID: String, id: String) -> String {
        "ciba:passkey:\(tenantID):\(id)"
    }
}
