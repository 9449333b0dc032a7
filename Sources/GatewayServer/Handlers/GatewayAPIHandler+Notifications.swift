import Foundation
import GatewayAPI
import GatewayCore
import OpenAPIRuntime

/// Senders' notifications (issue 30): translate, the ``NotificationService`` decides.
extension GatewayAPIHandler {
    func sendNotification(_ input: Operations.SendNotification.Input) async throws
        -> Operations.SendNotification.Output
    {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let sender = try Self.requireSender()
        try RequestValidation.identifier(body.miniAppId, "miniAppId")
        let key = try RequestValidation.idempotencyKey()
        let recipients: PushRecipients
        switch (body.to.userIds, body.to.all) {
        case (let users?, nil), (let users?, false?): recipients = .users(users)
        case (nil, true?): recipients = .allConsented
        default: throw NotificationError.invalid("`to` holds exactly one of userIds and all: true")
        }
        let request = PushContent(
            miniAppID: body.miniAppId, recipients: recipients,
            texts: body.text.additionalProperties.mapValues { PushText(title: $0.title, body: $0.body) },
            data: try body.data.map { try JSONValue(container: $0.additionalProperties) }, link: body.link,
            collapseID: body.collapseId, ttlSeconds: body.ttlSeconds ?? NotificationRules.defaultTTLSeconds,
            priority: body.priority.flatMap { PushPriority(rawValue: $0.rawValue) } ?? .normal)
        let outcome = try await services.userState.notifications.send(request, from: sender, idempotencyKey: key)
        let id: String
        switch outcome {
        case .queued(let queued, _), .replayed(let queued): id = queued
        }
        return .accepted(.init(body: .json(.init(id: id))))
    }

    func getNotification(_ input: Operations.GetNotification.Input) async throws -> Operations.GetNotification.Output {
        let id = input.path.messageId
        try RequestValidation.opaqueID(id, "messageId")
        let status = try await services.userState.notifications.status(of: id, sender: try Self.requireSender())
        let count = { (state: DeliveryState) in status.counts[state] ?? 0 }
        return .ok(
            .init(
                body: .json(
                    .init(
                        id: status.message.id, miniAppId: status.message.miniAppID, createdAt: status.message.createdAt,
                        counts: .init(
                            pending: count(.pending), sent: count(.sent), skippedNoConsent: count(.skippedNoConsent),
                            invalidToken: count(.invalidToken), failed: count(.failed), expired: count(.expired)),
                        devices: status.deliveries.map {
                            .init(
                                deviceId: $0.deviceID, userId: $0.userID, state: .init(rawValue: $0.state.rawValue)!,
                                attempts: $0.attempts)
                        }))))
    }

    /// The verified sender token; a sender operation reaching here without one is a wiring bug.
    static func requireSender() throws -> SenderTokenClaims {
        guard let sender = RequestScope.current?.sender else { throw GatewayProblem.internalError() }
        return sender
    }
}

extension JSONValue {
    /// The value of a generated free-form object.
    init(container: OpenAPIObjectContainer) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(container))
    }
}
