import Foundation

extension MiniAppPermissionManifest {
    /// The permission part of a manifest answer the gateway produced
    /// (``MiniAppAnswers/Manifest``, the `MiniAppManifest` schema).
    public init(answer: MiniAppAnswers.Manifest) {
        self.init(
            miniAppID: answer.miniAppId, versionID: answer.versionId,
            required: answer.requiredPermissions.map { Permission(name: $0.name, reason: $0.reason) },
            optional: answer.optionalPermissions.map { Permission(name: $0.name, reason: $0.reason) },
            accessTokenPermissions: answer.accessTokenPermissions.map { AccessTokenPermission(audience: $0.audience, scopes: $0.scopes) }
        )
    }

    /// Decodes manifest answer bytes (`MiniAppService.manifest`).
    public init(answerBytes: [UInt8]) throws {
        self.init(answer: try JSONDecoder().decode(MiniAppAnswers.Manifest.self, from: Data(answerBytes)))
    }
}

extension MiniAppService {
    /// The permission manifest of `id`'s latest published version (both answers cached).
    public func permissionManifest(tenant: Tenant, id: String, lang: String?, deadline: ContinuousClock.Instant) async throws -> MiniAppPermissionManifest {
        let info = try JSONDecoder().decode(MiniAppAnswers.MiniApp.self, from: Data(try await miniApp(tenant: tenant, id: id, deadline: deadline).body))
        let answer = try await manifest(tenant: tenant, id: id, versionID: info.version.versionId, lang: lang, deadline: deadline)
        return try MiniAppPermissionManifest(answerBytes: answer.body)
    }
}
