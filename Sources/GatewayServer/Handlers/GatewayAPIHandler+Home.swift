import GatewayAPI
import GatewayCore
import HTTPTypes

extension GatewayAPIHandler {
    /// Host config (local, always present), the featured mini apps (platform catalog,
    /// cached), the user's recent mini apps (SQLite, manifests from the answer cache) and
    /// the localization bundle for `Accept-Language`, concurrently; a late or failed part
    /// is listed in `missing`, never a 5xx. Each part answers by its deadline (``CutOff``);
    /// the upstream work of a cut part keeps the full upstream budget and finishes into the
    /// answer cache, so the next `/home` finds it.
    func getHome(_ input: Operations.GetHome.Input) async throws -> Operations.GetHome.Output {
        try RequestValidation.length(RequestScope.header(.acceptLanguage), 0...1000, "Accept-Language")
        let tenant = try RequestScope.requireTenant()
        let partBudget = min(services.upstreamBudget, services.homePartBudget)
        let audience = ReleaseAudience.current
        async let featured = CutOff.value(within: partBudget) { () -> [Components.Schemas.MiniApp]? in
            let query = ProvisioningQuery(featured: ProvisioningTarget(tenant: tenant) != nil, count: 10)
            let answer = try await services.releases.list(
                try await services.miniApps.list(
                    tenant: tenant, query: query, deadline: ContinuousClock.now + services.upstreamBudget),
                tenantID: tenant.id, for: audience)
            let list: Components.Schemas.MiniAppList = try Self.decode(answer.body)
            return list.items
        }
        let acceptLanguage = RequestScope.header(.acceptLanguage)
        async let localization = CutOff.value(within: partBudget) { () -> Components.Schemas.Localization? in
            let locale = try await services.userState.localizationResolver.negotiate(
                tenantID: tenant.id, acceptLanguage: acceptLanguage)
            let bundle = try await services.userState.localizations.bundle(tenant: tenant, locale: locale)
            return .init(
                locale: bundle.locale, chain: bundle.chain, entries: .init(additionalProperties: bundle.entries))
        }
        let subject = RequestScope.current?.principal?.subject
        async let recent = CutOff.value(within: partBudget) { () -> [Components.Schemas.UserMiniApp]? in
            guard let subject else { return nil }
            return try await recentMiniApps(tenant: tenant, userID: subject, state: services.userState)
        }
        let featuredItems = await featured
        let localizationBundle = await localization
        let recentItems = await recent
        var missing: [Components.Schemas.Home.MissingPayloadPayload] = []
        if featuredItems == nil { missing.append(.featured) }
        if localizationBundle == nil { missing.append(.localization) }
        if recentItems == nil { missing.append(.recent) }
        let body = Components.Schemas.Home(
            complete: missing.isEmpty,
            missing: missing,
            hostConfig: Self.hostConfig(tenant),
            featured: featuredItems,
            recent: recentItems,
            localization: localizationBundle
        )
        return .ok(.init(body: .json(body)))
    }

    /// The user's 10 most recently used mini apps; `mayLaunch` is left out for an app
    /// whose manifest cannot be read in time, and false for one whose version was withdrawn.
    private func recentMiniApps(
        tenant: Tenant, userID: String, state: UserStateServices
    ) async throws -> [Components.Schemas.UserMiniApp] {
        let withdrawn = WithdrawnMiniApps()
        let entries = try await state.consents.userMiniApps(tenantID: tenant.id, userID: userID, limit: 10) { id in
            try? await permissionManifest(tenant: tenant, id: id, lang: nil, withdrawn: withdrawn)
        }
        return entries.map { Self.userMiniApp($0, withdrawn: withdrawn) }
    }
}
