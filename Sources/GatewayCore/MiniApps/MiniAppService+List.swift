extension MiniAppService {
    /// The most items one page carries when a client asks for all (`count=0`, as GeneXus does).
    public static let allItemsMaximum = 1000

    /// One page of the tenant's catalog: the platform listing merged with provisioning
    /// search results (same id: the platform wins), stable order, paged by start/count.
    /// Criteria only provisioning evaluates (tag, location, featured, filters) list
    /// provisioning results only.
    public func list(
        tenant: Tenant, query: ProvisioningQuery, deadline: ContinuousClock.Instant
    ) async throws -> CachedAnswer {
        let location = query.location.map { "\($0.latitude),\($0.longitude),\($0.radiusMetres)" } ?? ""
        let parts = [
            query.text ?? "", query.tag ?? "", location, query.featured ? "f" : "",
            query.filters.map(\.wireValue).joined(separator: "&"), String(query.start), String(query.count),
        ]
        let key = CacheKey.answer(tenant: tenant, kind: "list", parts)
        return try await cached(key, policy: .ttl(seconds: tenant.cacheTTLs.catalogSeconds)) {
            let all = try await merged(tenant: tenant, query: query, deadline: deadline)
            let page = all.dropFirst(query.start).prefix(query.count)
            let next = query.start + page.count < all.count ? query.start + page.count : nil
            return .init(
                status: 200, body: try MiniAppAnswers.encode(MiniAppAnswers.MiniAppList(items: Array(page), next: next))
            )
        }
    }

    private func merged(
        tenant: Tenant, query: ProvisioningQuery, deadline: ContinuousClock.Instant
    ) async throws -> [MiniAppAnswers.MiniApp] {
        let provisioningTarget = provisioning == nil ? nil : ProvisioningTarget(tenant: tenant)
        let platformTarget = try? self.platformTarget(tenant)
        guard platformTarget != nil || provisioningTarget != nil else { throw UpstreamError.notConfigured }
        let listed = query.needsProvisioning ? nil : platformTarget
        async let fromPlatform = platformListing(listed, deadline: deadline)
        async let fromProvisioning: [ProvisioningMiniApp] = provisioningSearch(
            query, provisioningTarget, deadline: deadline)
        let platformApps = try await fromPlatform
        let provisioned = try await fromProvisioning
        let needle = query.text?.lowercased()
        var items = platformApps.filter { app in
            guard let needle else { return true }
            return app.displayName.lowercased().contains(needle)
                || (app.promotionalText?.lowercased().contains(needle) ?? false)
        }.map(MiniAppAnswers.MiniApp.init)
        let platformIDs = Set(items.map(\.id))
        items += provisioned.filter { !platformIDs.contains($0.id) }.map(MiniAppAnswers.MiniApp.init)
        if query.featured { return items }  // provisioning's featured order
        return items.sorted { ($0.displayName.lowercased(), $0.id) < ($1.displayName.lowercased(), $1.id) }
    }

    private func platformListing(
        _ target: PlatformTarget?, deadline: ContinuousClock.Instant
    ) async throws -> [PlatformMiniAppInfo] {
        guard let target else { return [] }
        return try await platform.listMiniApps(target, deadline: deadline)
    }

    private func provisioningSearch(
        _ query: ProvisioningQuery, _ target: ProvisioningTarget?, deadline: ContinuousClock.Instant
    ) async throws -> [ProvisioningMiniApp] {
        guard let provisioning, let target else { return [] }
        var all = query
        all.start = 0
        all.count = 0  // the gateway pages the merged list
        do {
            return try await provisioning.search(all, target, deadline: deadline)
        } catch let error as UpstreamError {
            throw MiniAppError.upstream(error, .provisioning)
        }
    }
}

extension UpstreamError {
    /// The upstream error inside `error`, if any (bare, or a ``MiniAppError/upstream(_:_:)``
    /// that names which upstream failed inside a cache fill).
    static func underlying(_ error: any Error) -> UpstreamError? {
        if let upstream = error as? UpstreamError { return upstream }
        guard case .upstream(let upstream, _)? = error as? MiniAppError else { return nil }
        return upstream
    }
}
