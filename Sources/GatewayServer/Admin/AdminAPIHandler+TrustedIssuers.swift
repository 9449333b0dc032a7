import AdminAPI
import Foundation
import GatewayCore

/// The issuers a tenant trusts, on the admin API.
extension AdminAPIHandler {
    func adminListTrustedIssuers(
        _ input: Operations.AdminListTrustedIssuers.Input
    ) async throws -> Operations.AdminListTrustedIssuers.Output {
        try AdminInput.check(input.query.cursor, max: 200, "cursor")
        let page = try await service.trustedIssuers(
            try AdminScope.call(), tenantID: input.path.tenant, cursor: input.query.cursor,
            limit: input.query.limit ?? 50)
        let items = try page.items.map { try Self.wire($0, as: Components.Schemas.TrustedIssuer.self) }
        return .ok(.init(body: .json(.init(items: items, next: page.next))))
    }

    func adminTrustIssuer(_ input: Operations.AdminTrustIssuer.Input) async throws -> Operations.AdminTrustIssuer.Output
    {
        guard case .json(let body) = input.body else { throw AdminError.badRequest("a JSON body") }
        let bounds: [(String?, Int, String)] = [
            (body.issuer, 512, "issuer"), (body.audience, 512, "audience"), (body.subjectClaim, 64, "subjectClaim"),
            (body.jwksURI, 512, "jwksURI"), (body.introspectionClientID, 256, "introspectionClientID"),
            (body.introspectionSecret, 1024, "introspectionSecret"),
        ]
        for (value, max, name) in bounds { try AdminInput.check(value, max: max, name) }
        if let seconds = body.introspectionCacheSeconds, !(1...3600).contains(seconds) {
            throw AdminError.badRequest("introspectionCacheSeconds is 1-3600")
        }
        guard
            body.introspectionClientID != nil
                || (body.introspectionSecret == nil && body.introspectionCacheSeconds == nil)
        else {
            throw AdminError.badRequest("introspectionSecret and introspectionCacheSeconds need introspectionClientID")
        }
        let introspection = body.introspectionClientID.map {
            TrustedIssuer.Introspection(
                clientID: $0, clientSecret: body.introspectionSecret.map(SecretValue.init),
                cacheSeconds: body.introspectionCacheSeconds ?? 300)
        }
        let trust = TrustedIssuer(
            tenantID: input.path.tenant, issuer: body.issuer, audience: body.audience,
            subjectClaim: body.subjectClaim ?? "sub",
            jwksURI: body.jwksURI, introspection: introspection)
        let stored = try await service.trustIssuer(try AdminScope.call(), tenantID: input.path.tenant, trust)
        return .ok(.init(body: .json(try Self.wire(stored, as: Components.Schemas.TrustedIssuer.self))))
    }

    func adminUntrustIssuer(
        _ input: Operations.AdminUntrustIssuer.Input
    ) async throws -> Operations.AdminUntrustIssuer.Output {
        try AdminInput.check(input.query.issuer, max: 512, "issuer")
        try await service.untrustIssuer(try AdminScope.call(), tenantID: input.path.tenant, issuer: input.query.issuer)
        return .noContent(.init())
    }
}
