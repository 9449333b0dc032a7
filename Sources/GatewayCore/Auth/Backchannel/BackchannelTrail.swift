import Foundation

/// Backchannel requests and their answers in the tenant's audit trail (issue 50): who asked
/// for whom, from where, and what the user answered. Recorded on the user (`user` resource,
/// the subject as its id; a hint that named nobody has none), with the action in the note:
/// `sign-in-request`, `sign-in-approve`, `sign-in-deny`.
public enum BackchannelTrail {
    /// The record of a request the client made.
    public static func requested(_ request: BackchannelRequest, requestID: String?) -> AuditDraft {
        let message = request.bindingMessage.map { ", binding message \"\($0)\"" } ?? ""
        return AuditDraft(
            time: request.requestedAt,
            actor: AuditActor(
                subject: "client:\(request.clientID)", name: request.clientID, roles: [], address: request.address),
            requestID: requestID, verb: .create,
            resource: AuditResource(type: .user, tenant: request.tenantID, id: request.subject),
            outcome: AuditOutcome(status: 200),
            note: AuditNote(
                action: "sign-in-request",
                summary:
                    "\(request.clientID) asked for \(request.subject ?? "a hint that names nobody") (scopes \(request.scopes.joined(separator: " "))\(message))"
            ))
    }

    /// The record of the user's answer.
    public static func answered(
        _ request: BackchannelRequest, approved: Bool, acr: String?, at time: Date,
        address: String?, requestID: String?
    ) -> AuditDraft {
        let subject = request.subject ?? ""
        let stepUp = acr.map { " with a step-up (\($0))" } ?? ""
        return AuditDraft(
            time: time,
            actor: AuditActor(subject: "user:\(subject)", name: subject, roles: [], address: address),
            requestID: requestID, verb: .act,
            resource: AuditResource(type: .user, tenant: request.tenantID, id: subject),
            outcome: AuditOutcome(status: 200),
            note: AuditNote(
                action: approved ? "sign-in-approve" : "sign-in-deny",
                summary: "\(approved ? "approved" : "denied") \(request.clientID)'s sign-in request\(stepUp)"))
    }

    /// The record of a passkey refused at an approval because its sign counter went back (a
    /// possible clone, WebAuthn §6.1.1): the user is the actor, as at the answer.
    public static func passkeyRefused(
        tenantID: String, subject: String, stored: UInt32, received: UInt32, address: String?, requestID: String?,
        at time: Date
    ) -> AuditDraft {
        AuditDraft(
            time: time,
            actor: AuditActor(subject: "user:\(subject)", name: subject, roles: [], address: address),
            requestID: requestID, verb: .act,
            resource: AuditResource(type: .user, tenant: tenantID, id: subject),
            outcome: AuditOutcome(status: 403, code: "step_up_failed"),
            note: AuditNote(
                action: "passkey.refused",
                summary: "a passkey's sign counter went back (\(stored) to \(received)) at a sign-in approval: "
                    + "refused as a possible clone"))
    }
}
