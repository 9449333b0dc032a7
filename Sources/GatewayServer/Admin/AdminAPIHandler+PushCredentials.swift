import AdminAPI
import Foundation
import GatewayCore

/// A tenant's push provider credentials on the admin API: written, answered masked.
extension AdminAPIHandler {
    func adminListPushCredentials(
        _ input: Operations.AdminListPushCredentials.Input
    ) async throws -> Operations.AdminListPushCredentials.Output {
        let found = try await service.pushCredentials(try AdminScope.call(), tenantID: input.path.tenant)
        return .ok(.init(body: .json(.init(items: try found.map { try Self.wire($0, as: Components.Schemas.PushCredential.self) }))))
    }

    func adminGetPushCredential(
        _ input: Operations.AdminGetPushCredential.Input
    ) async throws -> Operations.AdminGetPushCredential.Output {
        let found = try await service.pushCredential(
            try AdminScope.call(), tenantID: input.path.tenant, provider: try Self.provider(input.path.provider))
        return .ok(.init(body: .json(try Self.wire(found, as: Components.Schemas.PushCredential.self))))
    }

    func adminSetPushCredential(
        _ input: Operations.AdminSetPushCredential.Input
    ) async throws -> Operations.AdminSetPushCredential.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let provider = try Self.provider(input.path.provider)
        let stored = try await service.setPushCredential(try AdminScope.call(), tenantID: input.path.tenant, provider: provider) {
            switch provider {
            case .apns:
                guard body.serviceAccountJSON == nil else {
                    throw PushCredentialError.invalid("serviceAccountJSON is for fcm; apns takes keyID, teamID, topic, privateKey")
                }
                guard let keyID = body.keyID, let teamID = body.teamID, let topic = body.topic, let key = body.privateKey else {
                    throw PushCredentialError.invalid("apns needs keyID, teamID, topic and privateKey")
                }
                return .apns(
                    try APNsCredentials(
                        keyID: keyID, teamID: teamID, topic: topic,
                        environment: body.environment.flatMap { APNsEnvironment(rawValue: $0.rawValue) } ?? .production,
                        privateKey: key))
            case .fcm:
                guard body.keyID == nil, body.teamID == nil, body.topic == nil, body.environment == nil, body.privateKey == nil
                else { throw PushCredentialError.invalid("fcm takes serviceAccountJSON only") }
                guard let json = body.serviceAccountJSON else { throw PushCredentialError.invalid("fcm needs serviceAccountJSON") }
                return .fcm(try FCMCredentials(serviceAccountJSON: Data(json.utf8)))
            }
        }
        return .ok(.init(body: .json(try Self.wire(stored, as: Components.Schemas.PushCredential.self))))
    }

    func adminDeletePushCredential(
        _ input: Operations.AdminDeletePushCredential.Input
    ) async throws -> Operations.AdminDeletePushCredential.Output {
        try await service.removePushCredential(
            try AdminScope.call(), tenantID: input.path.tenant, provider: try Self.provider(input.path.provider))
        return .noContent(.init())
    }

    /// The provider a path names (each operation generates its own enum of the same cases).
    private static func provider<Wire: RawRepresentable>(_ wire: Wire) throws -> PushProvider where Wire.RawValue == String {
        guard let provider = PushProvider(rawValue: wire.rawValue) else { throw AdminError.badRequest("provider is apns or fcm") }
        return provider
    }
}
