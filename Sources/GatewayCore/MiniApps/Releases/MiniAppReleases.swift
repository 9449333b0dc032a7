import Foundation

/// Staged releases at request time: which version each answer that names one carries for
/// the asking user, decided in memory from the ``ReleaseTable``. Cached answers stay shared
/// (they name the platform's latest version); an answer for another version is derived from
/// them once per (answer, version) and reused.
public struct MiniAppReleases: Sendable {
    /// The policies in memory.
    public let table: ReleaseTable
    private let clock: WallClock
    /// Info answers by `etag + version`, and the latest version an info answer names by etag.
    private let variants = BoundedMemo<CachedAnswer>()
    private let latestVersions = BoundedMemo<String>()

    public init(table: ReleaseTable, clock: WallClock = .system) {
        self.table = table
        self.clock = clock
    }

    /// What `audience` gets of `miniAppID` when the platform's latest version is `latest`.
    public func decision(
        tenantID: String, miniAppID: String, latest: String, for audience: ReleaseAudience
    ) -> ReleaseDecision {
        guard let policy = table.policy(tenantID: tenantID, miniAppID: miniAppID) else { return .latest }
        return policy.decision(latest: latest, for: audience, at: clock.now())
    }

    /// Refuses a withdrawn version (its manifest and bundle), naming the version to use
    /// instead; `latest` is asked only when the stand-in is the platform's latest version.
    public func requireOffered(
        tenantID: String, miniAppID: String, versionID: String, latest: () async -> String?
    ) async throws(MiniAppError) {
        guard let policy = table.policy(tenantID: tenantID, miniAppID: miniAppID), policy.isWithdrawn(versionID) else {
            return
        }
        var instead = policy.replacingWithdrawn(versionID)
        if instead == nil, let current = await latest(), !policy.isWithdrawn(current) { instead = current }
        throw .versionWithdrawn(version: versionID, useInstead: instead)
    }

    /// An info answer (`MiniAppAnswers.MiniApp`) as `audience` sees it.
    public func info(_ answer: CachedAnswer, tenantID: String, miniAppID: String, for audience: ReleaseAudience) throws
        -> CachedAnswer
    {
        guard table.policy(tenantID: tenantID, miniAppID: miniAppID) != nil else { return answer }
        let latest = try latestVersions.value(answer.etag) {
            try MiniAppService.decodeAnswer(MiniAppAnswers.MiniApp.self, answer).version.versionId
        }
        switch decision(tenantID: tenantID, miniAppID: miniAppID, latest: latest, for: audience) {
        case .latest:
            return answer
        case .withdrawn(let version):
            throw MiniAppError.versionWithdrawn(version: version, useInstead: nil)
        case .version(let version):
            return try variants.value(answer.etag + " " + version) {
                var app = try MiniAppService.decodeAnswer(MiniAppAnswers.MiniApp.self, answer)
                app.version = Self.named(version)
                return Self.derived(from: answer, body: try MiniAppAnswers.encode(app))
            }
        }
    }

    /// A list answer (`MiniAppAnswers.MiniAppList`) as `audience` sees it: items on another
    /// version name it, items with nothing to offer are left out.
    public func list(_ answer: CachedAnswer, tenantID: String, for audience: ReleaseAudience) throws -> CachedAnswer {
        guard table.hasPolicies(tenantID: tenantID) else { return answer }
        var list = try MiniAppService.decodeAnswer(MiniAppAnswers.MiniAppList.self, answer)
        guard let items = served(list.items, tenantID: tenantID, for: audience, id: \.id, version: \.version) else {
            return answer
        }
        list.items = items
        return Self.derived(from: answer, body: try MiniAppAnswers.encode(list))
    }

    /// Platform-shaped infos (the RAS API) as `audience` sees them.
    public func platformInfos(
        _ infos: [PlatformMiniAppInfo], tenantID: String, for audience: ReleaseAudience
    ) -> [PlatformMiniAppInfo] {
        guard table.hasPolicies(tenantID: tenantID) else { return infos }
        return served(infos, tenantID: tenantID, for: audience, id: \.id, version: \.version) ?? infos
    }

    /// `items` with the versions `audience` gets; nil when that changes nothing.
    private func served<Item>(
        _ items: [Item], tenantID: String, for audience: ReleaseAudience, id: KeyPath<Item, String>,
        version: WritableKeyPath<Item, PlatformMiniAppInfo.Version>
    ) -> [Item]? {
        let policies = table.policies(tenantID: tenantID)
        let now = clock.now()
        var changed = false
        let result = items.compactMap { item -> Item? in
            guard let policy = policies[item[keyPath: id]] else { return item }
            switch policy.decision(latest: item[keyPath: version].versionId, for: audience, at: now) {
            case .latest:
                return item
            case .withdrawn:
                changed = true
                return nil
            case .version(let name):
                changed = true
                var served = item
                served[keyPath: version] = Self.named(name)
                return served
            }
        }
        return changed ? result : nil
    }

    /// A version the platform does not list as latest: the platform reports tags only for
    /// its latest, so the tag repeats the id.
    static func named(_ version: String) -> PlatformMiniAppInfo.Version {
        .init(versionTag: version, versionId: version)
    }

    private static func derived(from answer: CachedAnswer, body: [UInt8]) -> CachedAnswer {
        CachedAnswer(
            status: answer.status, body: body, storedAt: answer.storedAt, freshUntil: answer.freshUntil,
            staleUntil: answer.staleUntil, errorUntil: answer.errorUntil)
    }
}
