import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    /// Host config (local, always present), the featured mini apps (platform catalog,
    /// cached) and the localization bundle for `Accept-Language`, concurrently; a late or
    /// failed part is listed in `missing`, never a 5xx.
    func getHome(_ input: Operations.GetHome.Input) async throws -> Operations.GetHome.Output {
        try RequestValidation.length(input.headers.acceptLanguage, 0...1000, "Accept-Language")
        let tenant = try RequestScope.requireTenant()
        let partBudget = min(upstreamBudget, homePartBudget)
        async let featured = Self.withinBudget(partBudget) { () -> [Components.Schemas.MiniApp]? in
            guard let miniApps else { return nil }
            let query = ProvisioningQuery(featured: ProvisioningTarget(tenant: tenant) != nil, count: 10)
            let answer = try await miniApps.list(tenant: tenant, query: query, deadline: ContinuousClock.now + partBudget)
            let list: Components.Schemas.MiniAppList = try Self.decode(answer.body)
            return list.items
        }
        let userState = self.userState
        let acceptLanguage = input.headers.acceptLanguage
        async let localization = Self.withinBudget(partBudget) { () -> Components.Schemas.Localization? in
            guard let userState else { return nil }
            let locale = try await userState.localizationResolver.negotiate(tenantID: tenant.id, acceptLanguage: acceptLanguage)
            let bundle = try await userState.localizations.bundle(tenant: tenant, locale: locale)
            return .init(locale: bundle.locale, chain: bundle.chain, entries: .init(additionalProperties: bundle.entries))
        }
        let featuredItems = await featured
        let localizationBundle = await localization
        var missing: [Components.Schemas.Home.MissingPayloadPayload] = []
        if featuredItems == nil { missing.append(.featured) }
        if localizationBundle == nil { missing.append(.localization) }
        let body = Components.Schemas.Home(
            complete: missing.isEmpty,
            missing: missing,
            hostConfig: Self.hostConfig(tenant),
            featured: featuredItems,
            localization: localizationBundle
        )
        return .ok(.init(body: .json(body)))
    }

    /// `operation`'s value, or nil when it throws or `budget` passes first.
    static func withinBudget<T: Sendable>(_ budget: Duration, _ operation: @escaping @Sendable () async throws -> T?) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { try? await operation() }
            group.addTask {
                try? await Task.sleep(for: budget)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
