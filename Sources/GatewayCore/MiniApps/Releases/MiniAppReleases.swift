import Foundation

/// Staged releases at request time: which version each answer that names one carries for
/// the asking user, decided in memory from the ``ReleaseTable``. Cached answers stay shared
/// (they name the platform's latest version); an answer for another version is derived from
/// them once per (answer, version) and reused. The audience is an autoclosure: it is built
/// (headers read and parsed) only when a policy applies.
public struct MiniAppReleases: Sendable {
    /// The policies in memory.
    public let table: ReleaseTable
    private let clock: WallClock
    /// Info answers by `etag + version`, and the latest version an info answer names by etag.
    private let variants = BoundedMemo<CachedAnswer>()
    private let latestVersions = BoundedMemo<String>()
    private let metrics: ReleaseMetrics?

    /// - Parameter metrics: counts the versions served (nil: not counted).
    public init(table: ReleaseTable, clock: WallClock = .system, metrics: ReleaseMetrics? = nil) {
        self.table = table
        self.clock = clock
        self.metrics = metrics
    }

    /// What `audience` gets of `miniAppID` when the platform's latest version is `latest`.
    public func decision(
        tenantID: String, miniAppID: String, latest: String, for audience: @autoclosure () -> ReleaseAudience
    ) -> ReleaseDecision {
        guard let policy = table.policy(tenantID: tenantID, miniAppID: miniAppID) else { return .latest }
        return counted(policy.decision(latest: latest, for: audience(), at: clock.now()), policy, latest: latest)
    }

    /// `decision`, counted as one answer naming the version it serves.
    private func counted(_ decision: ReleaseDecision, _ policy: ReleasePolicy, latest: String) -> ReleaseDecision {
        guard let metrics else { return decision }
        let version: String
        switch decision {
        case .latest: version = latest
        case .version(let served): version = served
        case .withdrawn: return decision
        }
        metrics.served(tenantID: policy.tenantID, miniAppID: policy.miniAppID, version: version)
        return decision
    }

    /// The version an info answer (`MiniAppAnswers.MiniApp`) names: the platform's latest
    /// (decoded once per answer).
    public func latestVersion(of answer: CachedAnswer) throws -> String {
        try latestVersions.value(answer.etag) {
            try MiniAppService.decodeAnswer(MiniAppAnswers.MiniApp.self, answer).version.versionId
        }
    }

    /// Whether `versionID` of `miniAppID` is offered (not withdrawn); decided in memory.
    public func isOffered(tenantID: String, miniAppID: String, versionID: String) -> Bool {
        table.policy(tenantID: tenantID, miniAppID: miniAppID).map { !$0.isWithdrawn(versionID) } ?? true
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
    public func info(
        _ answer: CachedAnswer, tenantID: String, miniAppID: String, for audience: @autoclosure () -> ReleaseAudience
    ) throws -> CachedAnswer {
        guard let policy = table.policy(tenantID: tenantID, miniAppID: miniAppID) else { return answer }
        let latest = try latestVersion(of: answer)
        switch counted(policy.decision(latest: latest, for: audience(), at: clock.now()), policy, latest: latest) {
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
    public func list(
        _ answer: CachedAnswer, tenantID: String, for audience: @autoclosure () -> ReleaseAudience
    ) throws -> CachedAnswer {
        guard table.hasPolicies(tenantID: tenantID) else { return answer }
        var list = try MiniAppService.decodeAnswer(MiniAppAnswers.MiniAppList.self, answer)
        guard let items = served(list.items, tenantID: tenantID, for: audience(), id: \.id, version: \.version) else {
            return answer
        }
        list.items = items
        return Self.derived(from: answer, body: try MiniAppAnswers.encode(list))
    }

    /// Platform-shaped infos (the RAS API) as `audience` sees them.
    public func platformInfos(
        _ infos: [PlatformMiniAppInfo], tenantID: String, for audience: @autoclosure () -> ReleaseAudience
    ) -> [PlatformMiniAppInfo] {
        guard table.hasPolicies(tenantID: tenantID) else { return infos }
        return served(infos, tenantID: tenantID, for: audience(), id: \.id, version: \.version) ?? infos
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
            let latest = item[keyPath: version].versionId
            switch counted(policy.decision(latest: latest, for: audience, at: now), policy, latest: latest) {
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
