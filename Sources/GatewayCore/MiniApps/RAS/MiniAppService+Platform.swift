import Foundation

/// The platform-shaped reads the RAS-compatible API (`/t/{tenant}/ras/`) serves: the same
/// engine as `/v1` — the same answer-cache entries (info, manifest, bundle, public key),
/// single flight, stale-if-error, breaker and signature verdicts — decoded from the cached
/// `/v1` answers, so the two wire formats cannot drift apart. Only the catalog has an entry of
/// its own: `/v1`'s list merges provisioning and pages, the SDK wants the platform's list whole.
extension MiniAppService {
    /// The platform's published mini apps, unpaged, cached for the catalog TTL.
    public func platformCatalog(tenant: Tenant, deadline: ContinuousClock.Instant) async throws -> [PlatformMiniAppInfo]
    {
        let key = CacheKey.answer(tenant: tenant, kind: "platform-list", [])
        let answer = try await cached(key, policy: .ttl(seconds: tenant.cacheTTLs.catalogSeconds)) {
            let apps = try await platform.listMiniApps(try platformTarget(tenant), deadline: deadline)
            return .init(status: 200, body: try MiniAppAnswers.encode(apps))
        }
        return try Self.decodeAnswer([PlatformMiniAppInfo].self, answer)
    }

    /// The latest published version of a platform mini app: `[]` when the platform has none
    /// published (as the platform answers), ``MiniAppError/miniAppNotFound`` when it does not
    /// know the app (an app only provisioning knows is not the platform's).
    public func platformInfo(
        tenant: Tenant, id: String, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        let app: MiniAppAnswers.MiniApp
        do {
            app = try Self.decodeAnswer(
                MiniAppAnswers.MiniApp.self, try await miniApp(tenant: tenant, id: id, deadline: deadline))
        } catch MiniAppError.noPublishedVersion {
            return []
        }
        guard app.source != "provisioning" else { throw MiniAppError.miniAppNotFound }
        return [PlatformMiniAppInfo(app)]
    }

    /// The files of one version with the platform's signature and the gateway's verdict
    /// (a tenant that requires verification refuses an invalid one: ``MiniAppError/invalidSignature``).
    public func platformFiles(
        tenant: Tenant, id: String, versionID: String, deadline: ContinuousClock.Instant
    ) async throws -> MiniAppAnswers.Bundle {
        try Self.decodeAnswer(
            MiniAppAnswers.Bundle.self,
            try await bundle(tenant: tenant, id: id, versionID: versionID, deadline: deadline))
    }

    /// The `bundleManifest` of one version (reasons filled from the default language as on `/v1`).
    public func platformMetadata(
        tenant: Tenant, id: String, versionID: String, lang: String?, deadline: ContinuousClock.Instant
    ) async throws -> PlatformMetadata {
        let manifest = try Self.decodeAnswer(
            MiniAppAnswers.Manifest.self,
            try await manifest(tenant: tenant, id: id, versionID: versionID, lang: lang, deadline: deadline))
        return PlatformMetadata(
            reqPermissions: manifest.requiredPermissions, optPermissions: manifest.optionalPermissions,
            accessTokenPermissions: manifest.accessTokenPermissions, customMetaData: manifest.customMetaData)
    }

    /// A platform signing key (the cache entry bundle verification uses); ``MiniAppError/publicKeyNotFound`` when unknown.
    public func platformPublicKey(
        tenant: Tenant, id: String, deadline: ContinuousClock.Instant
    ) async throws -> PlatformPublicKey {
        let key: PlatformPublicKey?
        do {
            key = try await publicKey(id, tenant: tenant, target: try platformTarget(tenant), deadline: deadline)
        } catch let error as UpstreamError {
            throw MiniAppError.upstream(error, .platform)
        }
        guard let key else { throw MiniAppError.publicKeyNotFound }
        return key
    }

    /// A preview code's mini app and host id (never the host's subscription key).
    public func platformPreview(
        tenant: Tenant, code: String, deadline: ContinuousClock.Instant
    ) async throws -> MiniAppAnswers.Preview {
        let bytes = try await preview(tenant: tenant, code: code, deadline: deadline)
        do {
            return try JSONDecoder().decode(MiniAppAnswers.Preview.self, from: Data(bytes))
        } catch {
            throw MiniAppError.upstream(.malformed("preview answer: \(error)"), .platform)
        }
    }

    /// A cached answer's body as `type` (the cache holds what this build's encoder wrote; an
    /// unreadable entry is reported as a malformed upstream answer, never a crash).
    public static func decodeAnswer<T: Decodable>(_ type: T.Type, _ answer: CachedAnswer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(answer.body))
        } catch {
            throw MiniAppError.upstream(.malformed("cached \(T.self): \(error)"), .platform)
        }
    }
}

extension PlatformMiniAppInfo {
    /// The platform's fields of a `/v1` answer (what the SDK reads as `MiniAppInfo`).
    public init(_ app: MiniAppAnswers.MiniApp) {
        self.init(id: app.id, displayName: app.displayName, icon: app.icon, version: app.version,
                  promotionalImageUrl: app.promotionalImageUrl, promotionalText: app.promotionalText)
    }
}
