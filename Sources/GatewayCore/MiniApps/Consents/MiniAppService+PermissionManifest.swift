import Foundation

extension MiniAppPermissionManifest {
    /// The permission part of a manifest answer the gateway produced
    /// (``MiniAppAnswers/Manifest``, the `MiniAppManifest` schema).
    public init(answer: MiniAppAnswers.Manifest) {
        self.init(
            miniAppID: answer.miniAppId, versionID: answer.versionId,
            required: answer.requiredPermissions.map { Permission(name: $0.name, reason: $0.reason) },
            optional: answer.optionalPermissions.map { Permission(name: $0.name, reason: $0.reason) },
            accessTokenPermissions: answer.accessTokenPermissions.map {
                AccessTokenPermission(audience: $0.audience, scopes: $0.scopes)
            }
        )
    }

    /// Decodes manifest answer bytes (`MiniAppService.manifest`).
    public init(answerBytes: [UInt8]) throws {
        self.init(answer: try JSONDecoder().decode(MiniAppAnswers.Manifest.self, from: Data(answerBytes)))
    }
}

extension MiniAppService {
    /// The permission manifest of `id`'s latest published version (both answers cached).
    ///
    /// Cold, that is two dependent upstream rounds (the latest version, then its manifest).
    /// The last latest version seen is remembered as a hint that outlives config bumps; with
    /// one, the manifest of the hinted version is fetched alongside the version check: one
    /// round when the app has not changed (manifests are immutable per version), the second
    /// only when it has.
    ///
    /// - Parameter served: the version a release policy serves the user, given the latest
    ///   (``MiniAppReleases/decision(tenantID:miniAppID:latest:for:)``).
    public func permissionManifest(
        tenant: Tenant, id: String, lang: String?, deadline: ContinuousClock.Instant,
        served: (@Sendable (_ latest: String) throws -> String)? = nil
    ) async throws -> MiniAppPermissionManifest {
        let hintKey = CacheKey.latestVersionHint(tenantID: tenant.id, miniAppID: id)
        let hinted = await answers.hint(hintKey)
        async let speculative: CachedAnswer? =
            hinted.asyncMap {
                try? await manifest(tenant: tenant, id: id, versionID: $0, lang: lang, deadline: deadline)
            } ?? nil
        let info = try JSONDecoder().decode(
            MiniAppAnswers.MiniApp.self, from: Data(try await miniApp(tenant: tenant, id: id, deadline: deadline).body))
        let latest = info.version.versionId
        let version = try served?(latest) ?? latest
        if version == hinted, let answer = await speculative {
            return try MiniAppPermissionManifest(answerBytes: answer.body)
        }
        if latest != hinted { await answers.remember(hint: latest, under: hintKey, ttl: .seconds(7 * 86_400)) }
        let answer = try await manifest(tenant: tenant, id: id, versionID: version, lang: lang, deadline: deadline)
        return try MiniAppPermissionManifest(answerBytes: answer.body)
    }
}
