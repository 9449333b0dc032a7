import Foundation
import GatewayAPI
import GatewayCore

extension GatewayAPIHandler {
    func getMiniAppPermissions(
        _ input: Operations.GetMiniAppPermissions.Input
    ) async throws -> Operations.GetMiniAppPermissions.Output {
        try RequestValidation.identifier(input.path.id, "id")
        try RequestValidation.language(input.query.lang)
        let (owner, tenant, state) = try userStateContext(miniAppID: input.path.id)
        let manifest = try await permissionManifest(tenant: tenant, id: input.path.id, lang: input.query.lang)
        let view = try await state.consents.view(owner, manifest: manifest)
        return .ok(.init(body: .json(Self.permissions(view, versionID: manifest.versionID))))
    }

    func putMiniAppPermissions(
        _ input: Operations.PutMiniAppPermissions.Input
    ) async throws -> Operations.PutMiniAppPermissions.Output {
        try RequestValidation.identifier(input.path.id, "id")
        try RequestValidation.language(input.query.lang)
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        guard body.permissions.count <= 50 else {
            throw GatewayProblem.invalidRequest("`permissions` holds at most 50 entries.")
        }
        var changes: [String: ConsentStatus] = [:]
        for entry in body.permissions {
            try RequestValidation.permissionName(entry.name)
            changes[entry.name] = entry.status == .allowed ? .allowed : .denied
        }
        let (owner, tenant, state) = try userStateContext(miniAppID: input.path.id)
        let manifest = try await permissionManifest(tenant: tenant, id: input.path.id, lang: input.query.lang)
        let view = try await state.consents.update(owner, manifest: manifest, changes: changes)
        return .ok(.init(body: .json(Self.permissions(view, versionID: manifest.versionID))))
    }

    func listUserMiniApps(_ input: Operations.ListUserMiniApps.Input) async throws -> Operations.ListUserMiniApps.Output
    {
        try RequestValidation.language(input.query.lang)
        let tenant = try RequestScope.requireTenant()
        let principal = try RequestScope.requirePrincipal()
        let state = services.userState
        let withdrawn = WithdrawnMiniApps()
        let entries = try await state.consents.userMiniApps(tenantID: tenant.id, userID: principal.subject) { id in
            try? await permissionManifest(tenant: tenant, id: id, lang: input.query.lang, withdrawn: withdrawn)
        }
        return .ok(.init(body: .json(.init(items: entries.map { Self.userMiniApp($0, withdrawn: withdrawn) }))))
    }

    func getUserMiniApp(_ input: Operations.GetUserMiniApp.Input) async throws -> Operations.GetUserMiniApp.Output {
        try RequestValidation.identifier(input.path.id, "id")
        try RequestValidation.language(input.query.lang)
        let (owner, tenant, state) = try userStateContext(miniAppID: input.path.id)
        let withdrawn = WithdrawnMiniApps()
        let entry = try await state.consents.userMiniApp(owner) {
            try? await permissionManifest(tenant: tenant, id: input.path.id, lang: input.query.lang, withdrawn: withdrawn)
        }
        return .ok(.init(body: .json(Self.userMiniApp(entry, withdrawn: withdrawn))))
    }

    /// One of the user's mini apps as the contract shows it.
    /// - Parameter withdrawn: mini apps with no version to offer the user (`mayLaunch` false).
    static func userMiniApp(_ entry: UserMiniAppEntry, withdrawn: WithdrawnMiniApps) -> Components.Schemas.UserMiniApp {
        let id = entry.consents.miniAppID
        return Components.Schemas.UserMiniApp(
            miniAppId: id, lastUsedAt: entry.consents.lastUsedAt,
            consents: entry.consents.records.map { .init(name: $0.permission, status: status($0.status)) },
            mayLaunch: withdrawn.contains(id) ? false : entry.view?.mayLaunch, consentVersion: entry.consents.version
        )
    }

    /// The caller's state key for `miniAppID`, the tenant and the user-state services.
    func userStateContext(miniAppID: String) throws -> (UserMiniAppKey, Tenant, UserStateServices) {
        let tenant = try RequestScope.requireTenant()
        let principal = try RequestScope.requirePrincipal()
        return (
            UserMiniAppKey(tenantID: tenant.id, userID: principal.subject, miniAppID: miniAppID), tenant,
            services.userState
        )
    }

    /// The permission manifest of the version the user gets (the latest published one unless
    /// a release policy says otherwise; cached answers). When no version may be offered, the
    /// latest's, and the app is noted in `withdrawn`.
    /// - Parameter userID: the user; by default the request's token subject.
    func permissionManifest(
        tenant: Tenant, id: String, lang: String?, userID: String? = RequestScope.current?.subject,
        withdrawn: WithdrawnMiniApps? = nil
    ) async throws -> MiniAppPermissionManifest {
        let headers = RequestScope.requestHeaders
        let releases = services.releases
        return try await services.miniApps.permissionManifest(
            tenant: tenant, id: id, lang: lang, deadline: ContinuousClock.now + services.upstreamBudget
        ) { latest in
            switch releases.decision(
                tenantID: tenant.id, miniAppID: id, latest: latest, for: ReleaseAudience(headers: headers, userID: userID))
            {
            case .latest: return latest
            case .version(let version): return version
            case .withdrawn:
                withdrawn?.insert(id)
                return latest
            }
        }
    }

    static func permissions(_ view: ConsentView, versionID: String) -> Components.Schemas.MiniAppPermissions {
        Components.Schemas.MiniAppPermissions(
            miniAppId: view.miniAppID, versionId: versionID,
            items: view.items.map {
                .init(
                    name: $0.name, title: $0.title, description: $0.description, reason: $0.reason,
                    required: $0.required,
                    status: $0.status.map(Self.status), updatedAt: $0.updatedAt)
            },
            mayLaunch: view.mayLaunch, consentVersion: view.consentVersion
        )
    }

    static func status(_ status: ConsentStatus) -> Components.Schemas.ConsentStatus {
        status == .allowed ? .allowed : .denied
    }
}
