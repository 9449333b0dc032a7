import AdminAPI
import Foundation
import GatewayCore

/// A tenant's signing keys on the admin API, in the shape `gatewayctl keys list --json`
/// prints (never key material).
extension AdminAPIHandler {
    func adminListSigningKeys(
        _ input: Operations.AdminListSigningKeys.Input
    ) async throws -> Operations.AdminListSigningKeys.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.signingKeys(
            try AdminScope.call(), tenantID: input.path.tenant,
            state: input.query.state.flatMap { SigningKey.Phase(rawValue: $0.rawValue) }, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: try page.items.map { try Self.wire($0, as: Components.Schemas.SigningKey.self) },
                        next: page.next))))
    }

    func adminRotateSigningKey(
        _ input: Operations.AdminRotateSigningKey.Input
    ) async throws -> Operations.AdminRotateSigningKey.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let call = try AdminScope.call()
        let tenantID = input.path.tenant
        let algorithm: SigningKey.Algorithm = body.alg == .rs256 ? .rs256 : .es256
        let (response, replayed) = try await service.once(
            call, key: input.headers.idempotencyKey, fingerprint: try Self.fingerprint("key-rotate", tenantID, body: body)
        ) {
            let key = try await service.rotateSigningKey(
                call, tenantID: tenantID, algorithm: algorithm, rsaBits: body.rsaBits.map { Int($0.rawValue) } ?? 2048,
                signAfter: TimeInterval(body.signAfterSeconds ?? 900))
            return IdempotentResponse(status: 201, etag: nil, body: try Self.json(key))
        }
        return .created(
            .init(
                headers: .init(idempotentReplayed: replayed ? ._true : nil),
                body: .json(try Self.wire(json: response.body, as: Components.Schemas.SigningKey.self))))
    }

    func adminSigningKeyAction(
        _ input: Operations.AdminSigningKeyAction.Input
    ) async throws -> Operations.AdminSigningKeyAction.Output {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        try AdminInput.check(input.path.kid, max: 64, "kid")
        let call = try AdminScope.call()
        let (tenantID, kid) = (input.path.tenant, input.path.kid)
        let (response, replayed) = try await service.once(
            call, key: input.headers.idempotencyKey,
            fingerprint: try Self.fingerprint("key-action", tenantID, kid, body: body)
        ) {
            let retirement = try await service.retireSigningKey(
                call, tenantID: tenantID, kid: kid, immediately: body.immediately ?? false)
            return IdempotentResponse(status: 200, etag: nil, body: try Self.json(retirement))
        }
        return .ok(
            .init(
                headers: .init(idempotentReplayed: replayed ? ._true : nil),
                body: .json(try Self.wire(json: response.body, as: Components.Schemas.SigningKeyRetirement.self))))
    }
}
