import Foundation
import GatewayAPI
import GatewayCore

/// The RAS-compatible API: what the Rakuten MiniApp SDK calls. Each handler checks the
/// project, asks ``MiniAppService``'s platform-shaped reads (the `/v1` engine and cache
/// entries) and writes the SDK's field names. The client key was checked at the edge
/// (``BearerAuthMiddleware``); errors are rendered by ``RASErrorResponse``.
extension GatewayAPIHandler {
    func rasListMiniApps(_ input: Operations.RasListMiniApps.Input) async throws -> Operations.RasListMiniApps.Output {
        .ok(
            .init(body: .json(try await rasMiniApps(projectID: input.path.projectId, miniAppID: input.query.miniAppId)))
        )
    }

    func rasListPreviewMiniApps(
        _ input: Operations.RasListPreviewMiniApps.Input
    ) async throws -> Operations.RasListPreviewMiniApps.Output {
        .ok(
            .init(body: .json(try await rasMiniApps(projectID: input.path.projectId, miniAppID: input.query.miniAppId)))
        )
    }

    func rasGetFileManifest(
        _ input: Operations.RasGetFileManifest.Input
    ) async throws -> Operations.RasGetFileManifest.Output {
        .ok(try await rasFiles(projectID: input.path.projectId, id: input.path.id, versionID: input.path.versionId))
    }

    func rasGetPreviewFileManifest(
        _ input: Operations.RasGetPreviewFileManifest.Input
    ) async throws -> Operations.RasGetPreviewFileManifest.Output {
        .ok(try await rasFiles(projectID: input.path.projectId, id: input.path.id, versionID: input.path.versionId))
    }

    func rasGetMetadata(_ input: Operations.RasGetMetadata.Input) async throws -> Operations.RasGetMetadata.Output {
        .ok(
            try await rasMetadata(
                projectID: input.path.projectId, id: input.path.id, versionID: input.path.versionId,
                lang: input.query.lang))
    }

    func rasGetPreviewMetadata(
        _ input: Operations.RasGetPreviewMetadata.Input
    ) async throws -> Operations.RasGetPreviewMetadata.Output {
        .ok(
            try await rasMetadata(
                projectID: input.path.projectId, id: input.path.id, versionID: input.path.versionId,
                lang: input.query.lang))
    }

    func rasGetPreviewCode(
        _ input: Operations.RasGetPreviewCode.Input
    ) async throws -> Operations.RasGetPreviewCode.Output {
        let tenant = try rasTenant(projectID: input.path.projectId)
        try RequestValidation.previewCode(input.path.previewCode)
        let preview = try await services.miniApps.platformPreview(
            tenant: tenant, code: input.path.previewCode, deadline: ContinuousClock.now + services.upstreamBudget)
        // The host's key is the caller's own client key: the platform's key never leaves the gateway.
        let presented = RASClientKey.fromHeader(input.headers.apiKey)
        return .ok(
            .init(
                body: .json(
                    .init(
                        miniapp: Self.rasInfo(PlatformMiniAppInfo(preview.miniApp)),
                        host: .init(id: preview.host.id, subscriptionkey: presented)))))
    }

    func rasGetPublicKey(_ input: Operations.RasGetPublicKey.Input) async throws -> Operations.RasGetPublicKey.Output {
        let tenant = try RequestScope.requireTenant()
        try RequestValidation.identifier(input.path.publicKeyId, "publicKeyId")
        let key = try await services.miniApps.platformPublicKey(
            tenant: tenant, id: input.path.publicKeyId, deadline: ContinuousClock.now + services.upstreamBudget)
        return .ok(.init(body: .json(.init(id: key.id, ecKey: key.ecKey, pemKey: key.pemKey))))
    }

    // MARK: in-app purchases (passed through, never cached)

    func rasGetPurchaseItems(
        _ input: Operations.RasGetPurchaseItems.Input
    ) async throws -> Operations.RasGetPurchaseItems.Output {
        let tenant = try rasTenant(projectID: input.path.projectId)
        try RequestValidation.identifier(input.path.id, "id")
        let bytes = try await services.purchases.items(
            tenant: tenant, miniAppID: input.path.id, deadline: ContinuousClock.now + services.upstreamBudget)
        return .ok(.init(body: .json(try Self.platformJSON(Components.Schemas.RASPurchaseItems.self, bytes))))
    }

    func rasRecordTransaction(
        _ input: Operations.RasRecordTransaction.Input
    ) async throws -> Operations.RasRecordTransaction.Output {
        let tenant = try rasTenant(projectID: input.path.projectId)
        try RequestValidation.identifier(input.path.id, "id")
        guard case .json(let transaction) = input.body else {
            throw GatewayProblem.invalidRequest("Expected a JSON body.")
        }
        let body = Array(try JSONEncoder().encode(transaction))
        let bytes = try await services.purchases.recordTransaction(
            tenant: tenant, miniAppID: input.path.id, body: body,
            deadline: ContinuousClock.now + services.upstreamBudget)
        return .ok(.init(body: .json(try Self.platformJSON(Components.Schemas.RASTransaction.self, bytes))))
    }

    func rasGetTransaction(
        _ input: Operations.RasGetTransaction.Input
    ) async throws -> Operations.RasGetTransaction.Output {
        let tenant = try rasTenant(projectID: input.path.projectId)
        try RequestValidation.identifier(input.path.id, "id")
        try RequestValidation.identifier(input.path.transactionToken, "transactionToken")
        let bytes = try await services.purchases.transaction(
            tenant: tenant, miniAppID: input.path.id, token: input.path.transactionToken,
            deadline: ContinuousClock.now + services.upstreamBudget)
        return .ok(.init(body: .json(try Self.platformJSON(Components.Schemas.RASTransaction.self, bytes))))
    }

    /// The platform's JSON as the contract's type; anything else is a malformed upstream answer (502).
    private static func platformJSON<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw MiniAppError.upstream(.malformed("\(T.self)"), .platform)
        }
    }

    // MARK: shared

    /// The tenant, when `projectID` is its platform project (any, for a tenant without one).
    private func rasTenant(projectID: String) throws -> Tenant {
        let tenant = try RequestScope.requireTenant()
        try RequestValidation.length(projectID, 1...256, "projectId")
        if let configured = tenant.platform.projectID, configured != projectID { throw GatewayProblem.unknownProject() }
        return tenant
    }

    private func rasMiniApps(projectID: String, miniAppID: String?) async throws -> [Components.Schemas.RASMiniAppInfo]
    {
        let tenant = try rasTenant(projectID: projectID)
        let deadline = ContinuousClock.now + services.upstreamBudget
        let infos: [PlatformMiniAppInfo]
        if let miniAppID {
            try RequestValidation.identifier(miniAppID, "miniAppId")
            infos = try await services.miniApps.platformInfo(tenant: tenant, id: miniAppID, deadline: deadline)
        } else {
            infos = try await services.miniApps.platformCatalog(tenant: tenant, deadline: deadline)
        }
        return await services.releases.platformInfos(infos, tenantID: tenant.id, for: .current).map(Self.rasInfo)
    }

    private func rasFiles(
        projectID: String, id: String, versionID: String
    ) async throws -> Components.Responses.RASFileManifest {
        let tenant = try rasTenant(projectID: projectID)
        try RequestValidation.identifier(id, "id")
        try RequestValidation.identifier(versionID, "versionId")
        try await requireOffered(id: id, versionID: versionID, tenant: tenant)
        let bundle = try await services.miniApps.platformFiles(
            tenant: tenant, id: id, versionID: versionID, deadline: ContinuousClock.now + services.upstreamBudget)
        let verdict: Components.Responses.RASFileManifest.Headers.XGatewaySignatureVerdictPayload =
            switch bundle.verification.status {
            case .valid: .valid
            case .invalid: .invalid
            case .unsigned: .unsigned
            }
        return .init(
            headers: .init(signature: bundle.signature, xGatewaySignatureVerdict: verdict),
            body: .json(.init(manifest: bundle.files, publicKeyId: bundle.publicKeyId)))
    }

    private func rasMetadata(
        projectID: String, id: String, versionID: String, lang: String?
    ) async throws -> Components.Responses.RASMetadata {
        let tenant = try rasTenant(projectID: projectID)
        try RequestValidation.identifier(id, "id")
        try RequestValidation.identifier(versionID, "versionId")
        try RequestValidation.language(lang)
        try await requireOffered(id: id, versionID: versionID, tenant: tenant)
        let m = try await services.miniApps.platformMetadata(
            tenant: tenant, id: id, versionID: versionID, lang: lang,
            deadline: ContinuousClock.now + services.upstreamBudget)
        return .init(
            body: .json(
                .init(
                    bundleManifest: .init(
                        reqPermissions: m.reqPermissions?.map { .init(name: $0.name, reason: $0.reason) },
                        optPermissions: m.optPermissions?.map { .init(name: $0.name, reason: $0.reason) },
                        accessTokenPermissions: m.accessTokenPermissions?.map {
                            .init(audience: $0.audience, scopes: $0.scopes)
                        },
                        customMetaData: m.customMetaData.map { .init(additionalProperties: $0) }))))
    }

    static func rasInfo(_ app: PlatformMiniAppInfo) -> Components.Schemas.RASMiniAppInfo {
        .init(
            id: app.id, displayName: app.displayName, icon: app.icon,
            version: .init(versionTag: app.version.versionTag, versionId: app.version.versionId),
            promotionalImageUrl: app.promotionalImageUrl, promotionalText: app.promotionalText)
    }

}
