import Foundation
import GatewayAPI
import GatewayCore
import HTTPTypes

extension GatewayAPIHandler {
    func listMiniApps(_ input: Operations.ListMiniApps.Input) async throws -> Operations.ListMiniApps.Output {
        let q = input.query
        try RequestValidation.length(q.text, 1...200, "text")
        try RequestValidation.length(q.tag, 1...100, "tag")
        try RequestValidation.range(q.start, 0...100_000, "start")
        try RequestValidation.range(q.count, 0...100, "count")
        let query = ProvisioningQuery(
            text: q.text, tag: q.tag, location: try RequestValidation.location(near: q.near, radius: q.radius),
            featured: q.featured ?? false, filters: try RequestValidation.filters(q.filter),
            // GeneXus: count 0 is "all" — up to the hard maximum per page, `next` beyond it.
            start: q.start ?? 0, count: q.count == 0 ? MiniAppService.allItemsMaximum : q.count ?? 20
        )
        let (tenant, service, deadline) = try miniAppContext()
        let answer = try await services.releases.list(
            try await service.list(tenant: tenant, query: query, deadline: deadline), tenantID: tenant.id,
            for: .current)
        return try EntityTag.answer(answer.etag, notModified: { .notModified(.init(headers: .init(eTag: $0))) }) {
            .ok(.init(headers: .init(eTag: answer.etag), body: .json(try Self.decode(answer.body))))
        }
    }

    func getMiniApp(_ input: Operations.GetMiniApp.Input) async throws -> Operations.GetMiniApp.Output {
        let answer = try await miniAppAnswer(id: input.path.id, tenant: RequestScope.requireTenant(), for: .current)
        return try EntityTag.answer(answer.etag, notModified: { .notModified(.init(headers: .init(eTag: $0))) }) {
            .ok(.init(headers: .init(eTag: answer.etag), body: .json(try Self.decode(answer.body))))
        }
    }

    func getMiniAppManifest(
        _ input: Operations.GetMiniAppManifest.Input
    ) async throws -> Operations.GetMiniAppManifest.Output {
        let answer = try await manifestAnswer(
            id: input.path.id, versionID: input.path.versionId, lang: input.query.lang,
            tenant: RequestScope.requireTenant())
        return try EntityTag.answer(answer.etag, notModified: { .notModified(.init(headers: .init(eTag: $0))) }) {
            .ok(.init(headers: .init(eTag: answer.etag), body: .json(try Self.decode(answer.body))))
        }
    }

    func getMiniAppBundle(_ input: Operations.GetMiniAppBundle.Input) async throws -> Operations.GetMiniAppBundle.Output
    {
        let answer = try await bundleAnswer(
            id: input.path.id, versionID: input.path.versionId, tenant: RequestScope.requireTenant())
        return try EntityTag.answer(answer.etag, notModified: { .notModified(.init(headers: .init(eTag: $0))) }) {
            .ok(.init(headers: .init(eTag: answer.etag), body: .json(try Self.decode(answer.body))))
        }
    }

    // The validated answers behind the operations above; ``StoredAnswerMiddleware`` serves
    // the same answers' bytes without the typed round trip. The tenant is passed in: the
    // middleware has it in its context, before any task-local binding.

    /// `getMiniApp`: the version of `id` `audience` gets (the latest published one unless a
    /// release policy says otherwise).
    func miniAppAnswer(
        id: String, tenant: Tenant, for audience: @autoclosure () -> ReleaseAudience
    ) async throws -> CachedAnswer {
        try RequestValidation.identifier(id, "id")
        let (service, deadline) = try miniAppService()
        return try await services.releases.info(
            try await service.miniApp(tenant: tenant, id: id, deadline: deadline), tenantID: tenant.id, miniAppID: id,
            for: audience())
    }

    /// The answer of a stored-answer read (``StoredAnswerMiddleware``).
    func storedAnswer(
        _ read: StoredAnswerRead, tenant: Tenant, for audience: @autoclosure () -> ReleaseAudience
    ) async throws -> CachedAnswer {
        switch (read.kind, read.versionID) {
        case (.miniApp, _), (_, nil):
            return try await miniAppAnswer(id: read.id, tenant: tenant, for: audience())
        case (.manifest, let version?):
            return try await manifestAnswer(id: read.id, versionID: version, lang: read.lang, tenant: tenant)
        case (.bundle, let version?):
            return try await bundleAnswer(id: read.id, versionID: version, tenant: tenant)
        }
    }

    /// `getMiniAppManifest`.
    func manifestAnswer(id: String, versionID: String, lang: String?, tenant: Tenant) async throws -> CachedAnswer {
        try RequestValidation.identifier(id, "id")
        try RequestValidation.identifier(versionID, "versionId")
        try RequestValidation.language(lang)
        try await requireOffered(id: id, versionID: versionID, tenant: tenant)
        let (service, deadline) = try miniAppService()
        return try await service.manifest(tenant: tenant, id: id, versionID: versionID, lang: lang, deadline: deadline)
    }

    /// `getMiniAppBundle`.
    func bundleAnswer(id: String, versionID: String, tenant: Tenant) async throws -> CachedAnswer {
        try RequestValidation.identifier(id, "id")
        try RequestValidation.identifier(versionID, "versionId")
        try await requireOffered(id: id, versionID: versionID, tenant: tenant)
        let (service, deadline) = try miniAppService()
        return try await service.bundle(tenant: tenant, id: id, versionID: versionID, deadline: deadline)
    }

    /// Refuses a withdrawn version (410 `version_withdrawn`, naming the version to use instead).
    func requireOffered(id: String, versionID: String, tenant: Tenant) async throws {
        let (service, deadline) = try miniAppService()
        let releases = services.releases
        try await releases.requireOffered(tenantID: tenant.id, miniAppID: id, versionID: versionID) {
            guard let answer = try? await service.miniApp(tenant: tenant, id: id, deadline: deadline) else { return nil }
            return try? releases.latestVersion(of: answer)
        }
    }

    func getPreview(_ input: Operations.GetPreview.Input) async throws -> Operations.GetPreview.Output {
        try RequestValidation.previewCode(input.path.code)
        let (tenant, service, deadline) = try miniAppContext()
        let bytes = try await service.preview(tenant: tenant, code: input.path.code, deadline: deadline)
        return .ok(.init(body: .json(try Self.decode(bytes))))
    }

    /// The tenant, the service and this request's upstream deadline.
    private func miniAppContext() throws -> (Tenant, MiniAppService, ContinuousClock.Instant) {
        let (service, deadline) = try miniAppService()
        return (try RequestScope.requireTenant(), service, deadline)
    }

    /// The service and this request's upstream deadline.
    private func miniAppService() throws -> (MiniAppService, ContinuousClock.Instant) {
        return (services.miniApps, ContinuousClock.now + services.upstreamBudget)
    }

    /// Our own answer bytes into the generated type (they were encoded from the same schema).
    static func decode<T: Decodable>(_ bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(bytes))
    }
}
