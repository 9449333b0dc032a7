/// The mini-app operations: platform answers through the tenant's cache, with the
/// error mapping of the contract. Answers come back as ``CachedAnswer`` bytes ready to
/// serve; refusals are thrown as ``MiniAppError``s.
public struct MiniAppService: Sendable {
    let platform: any PlatformClient
    let provisioning: (any ProvisioningClient)?
    let answers: AnswerCache
    let maxBundleBytes: Int
    let demoCatalog: String?

    /// - Parameter demoCatalog: folder served by ``LocalDirectoryPlatform`` to the `demo`
    ///   tenant while it has no platform base URL (`make run` works offline).
    public init(
        platform: any PlatformClient, provisioning: (any ProvisioningClient)? = nil, answers: AnswerCache,
        maxBundleBytes: Int = 64 << 20, demoCatalog: String? = nil
    ) {
        self.demoCatalog = demoCatalog
        self.platform = platform
        self.provisioning = provisioning
        self.answers = answers
        self.maxBundleBytes = maxBundleBytes
    }

    /// The latest published version of `id`. Sources in the order lists merge them: the
    /// platform first (it wins a listing too), then, when the platform does not know the id
    /// (or the tenant has none) and the tenant has provisioning, provisioning's
    /// `miniAppInfoById`; so every listed app can be opened.
    public func miniApp(tenant: Tenant, id: String, deadline: ContinuousClock.Instant) async throws -> CachedAnswer {
        let key = Self.infoKey(tenant, id: id)
        return try await cached(key, policy: .ttl(seconds: tenant.cacheTTLs.catalogSeconds)) {
            let provisioningTarget = provisioning == nil ? nil : ProvisioningTarget(tenant: tenant)
            let platformTarget = try? self.platformTarget(tenant)
            guard platformTarget != nil || provisioningTarget != nil else { throw UpstreamError.notConfigured }
            var platformHasNoVersion = false
            if let platformTarget {
                do {
                    let infos = try await platform.miniAppInfo(id: id, platformTarget, deadline: deadline)
                    if let latest = infos.first(where: { $0.id == id }) ?? infos.first {
                        return .init(status: 200, body: try MiniAppAnswers.encode(MiniAppAnswers.MiniApp(latest)))
                    }
                    platformHasNoVersion = true
                } catch UpstreamError.notFound where provisioningTarget != nil {
                    // Not the platform's: ask provisioning.
                }
            }
            if let provisioning, let provisioningTarget {
                do {
                    let app = try await provisioning.miniApp(id: id, provisioningTarget, deadline: deadline)
                    return .init(status: 200, body: try MiniAppAnswers.encode(MiniAppAnswers.MiniApp(app)))
                } catch UpstreamError.notFound {
                    // Neither knows it (or the platform has it unpublished).
                } catch let error as UpstreamError {
                    throw MiniAppError.upstream(error, .provisioning)
                }
            }
            return (platformHasNoVersion ? NegativeAnswer.noPublishedVersion : .miniAppNotFound).cached
        }
    }

    /// Permissions and metadata of one version; reasons fall back to the default language.
    public func manifest(
        tenant: Tenant, id: String, versionID: String, lang: String?, deadline: ContinuousClock.Instant
    ) async throws -> CachedAnswer {
        let key = Self.manifestKey(tenant, id: id, versionID: versionID, lang: lang)
        return try await cached(key, policy: .ttl(seconds: tenant.cacheTTLs.manifestSeconds)) {
            let target = try platformTarget(tenant)
            var metadata = try await platform.metadata(
                id: id, versionID: versionID, lang: lang, target, deadline: deadline)
            if lang != nil, Self.missesReasons(metadata) {
                if let fallback = try? await platform.metadata(
                    id: id, versionID: versionID, lang: nil, target, deadline: deadline)
                {
                    metadata = Self.fillReasons(metadata, from: fallback)
                }
            }
            let answer = MiniAppAnswers.Manifest(
                miniAppId: id, versionId: versionID, lang: lang,
                requiredPermissions: metadata.reqPermissions ?? [],
                optionalPermissions: metadata.optPermissions ?? [],
                accessTokenPermissions: metadata.accessTokenPermissions ?? [],
                customMetaData: metadata.customMetaData ?? [:]
            )
            return .init(status: 200, body: try MiniAppAnswers.encode(answer))
        }
    }

    /// Resolves a preview code (not cached: codes are short-lived and rare).
    public func preview(tenant: Tenant, code: String, deadline: ContinuousClock.Instant) async throws -> [UInt8] {
        do {
            let preview = try await platform.preview(code: code, try platformTarget(tenant), deadline: deadline)
            return try MiniAppAnswers.encode(
                MiniAppAnswers.Preview(miniApp: .init(preview.miniapp), host: preview.host))
        } catch UpstreamError.notFound {
            throw MiniAppError.previewNotFound
        } catch let error as UpstreamError {
            throw MiniAppError.upstream(error, .platform)
        }
    }

    /// Runs `load` through the answer cache; upstream failures and negative answers are
    /// thrown as ``MiniAppError``s. An upstream 404 becomes a cached negative answer.
    func cached(
        _ key: String, policy: CachePolicy, load: @escaping @Sendable () async throws -> AnswerCache.Loaded
    ) async throws -> CachedAnswer {
        let answer: CachedAnswer
        do {
            answer = try await answers.answer(key, policy: policy) {
                do {
                    return try await load()
                } catch UpstreamError.notFound {
                    return NegativeAnswer.miniAppNotFound.cached
                }
            }
        } catch let error as UpstreamError {
            // Provisioning failures arrive already named (`MiniAppError.upstream(_, .provisioning)`).
            throw MiniAppError.upstream(error, .platform)
        }
        guard answer.status == 200 else { throw NegativeAnswer(cached: answer).error }
        return answer
    }

    /// The tenant's platform: its configured API, or the demo catalog for `demo`.
    func platformTarget(_ tenant: Tenant) throws -> PlatformTarget {
        if tenant.id == DemoTenant.id, tenant.platform.baseURL == nil, let demoCatalog {
            return PlatformTarget(tenantID: tenant.id, localDirectory: demoCatalog)
        }
        return try PlatformTarget(tenant: tenant)
    }

    static func missesReasons(_ metadata: PlatformMetadata) -> Bool {
        ((metadata.reqPermissions ?? []) + (metadata.optPermissions ?? [])).contains { ($0.reason ?? "").isEmpty }
    }

    static func fillReasons(_ metadata: PlatformMetadata, from fallback: PlatformMetadata) -> PlatformMetadata {
        let defaults = Dictionary(
            ((fallback.reqPermissions ?? []) + (fallback.optPermissions ?? [])).map { ($0.name, $0.reason) },
            uniquingKeysWith: { first, _ in first })
        func fill(_ permissions: [PlatformMetadata.Permission]?) -> [PlatformMetadata.Permission]? {
            permissions?.map { permission in
                var filled = permission
                if (filled.reason ?? "").isEmpty, let reason = defaults[permission.name] ?? nil {
                    filled.reason = reason
                }
                return filled
            }
        }
        var result = metadata
        result.reqPermissions = fill(metadata.reqPermissions)
        result.optPermissions = fill(metadata.optPermissions)
        return result
    }
}
