import Foundation

/// Staged releases at request time: which version each answer that names one carries for
/// the asking user, decided in memory from the ``ReleaseTable``. Cached answers stay shared
/// (they name the platform's latest version); an answer for another version is derived from
/// them once per (answer, version) and reused. The audience is an autoclosure: it is built
/// (headers read and parsed) only when a policy applies.
///
/// Where the automatic halt watches a policy, what an answer serves a signed-in user is
/// recorded (``ServedVersions``) before the answer goes out: the halt counts a user's events
/// only for versions the gateway gave that user.
public struct MiniAppReleases: Sendable {
    /// The policies in memory.
    public let table: ReleaseTable
    private let clock: WallClock
    /// Info answers by `etag + version`, and the latest version an info answer names by etag.
    private let variants = BoundedMemo<CachedAnswer>()
    private let latestVersions = BoundedMemo<String>()
    private let metrics: ReleaseMetrics?
    /// Where versions served under a watched policy are recorded (nil: nowhere).
    public let served: ServedVersions?

    /// - Parameters:
    ///   - metrics: counts the versions served (nil: not counted).
    ///   - served: records what watched policies serve to whom (nil: not recorded, and the
    ///     automatic halt attributes nothing).
    public init(
        table: ReleaseTable, clock: WallClock = .system, metrics: ReleaseMetrics? = nil,
        served: ServedVersions? = nil
    ) {
        self.table = table
        self.clock = clock
        self.metrics = metrics
        self.served = served
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
        guard let metrics, let version = Self.version(decision, latest: latest) else { return decision }
        metrics.served(tenantID: policy.tenantID, miniAppID: policy.miniAppID, version: version)
        return decision
    }

    /// The version an answer names after `decision`; nil when it names none (withdrawn).
    private static func version(_ decision: ReleaseDecision, latest: String) -> String? {
        switch decision {
        case .latest: latest
        case .version(let served): served
        case .withdrawn: nil
        }
    }

    /// A served version the halt must know of before the answer goes out: a watched policy,
    /// a signed-in user. nil: nothing to record.
    private func servingToRecord(
        _ decision: ReleaseDecision, _ policy: ReleasePolicy, latest: String, userID: String?
    ) -> Serving? {
        guard served != nil, ServedVersions.watches(policy), let userID,
            let version = Self.version(decision, latest: latest)
        else { return nil }
        return Serving(tenantID: policy.tenantID, miniAppID: policy.miniAppID, version: version, userID: userID)
    }

    /// One version served to one user.
    private struct Serving: Sendable {
        var tenantID: String
        var miniAppID: String
        var version: String
        var userID: String
    }

    private func record(_ servings: [Serving]) async {
        guard let served else { return }
        for serving in servings {
            await served.record(
                tenantID: serving.tenantID, miniAppID: serving.miniAppID, version: serving.version,
                userID: serving.userID)
        }
    }

    private func isRecorded(_ serving: Serving) -> Bool {
        served?.isRecorded(
            tenantID: serving.tenantID, miniAppID: serving.miniAppID, version: serving.version, userID: serving.userID)
            ?? true
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

    /// An info answer (`MiniAppAnswers.MiniApp`) as `audience` sees it; what it serves is
    /// recorded first where the halt watches the policy.
    public func info(
        _ answer: CachedAnswer, tenantID: String, miniAppID: String, for audience: @autoclosure () -> ReleaseAudience
    ) async throws -> CachedAnswer {
        guard let policy = table.policy(tenantID: tenantID, miniAppID: miniAppID) else { return answer }
        let audience = audience()
        let latest = try latestVersion(of: answer)
        let decision = policy.decision(latest: latest, for: audience, at: clock.now())
        if let serving = servingToRecord(decision, policy, latest: latest, userID: audience.userID) {
            await record([serving])
        }
        return try infoAnswer(answer, counted(decision, policy, latest: latest))
    }

    /// ``info(_:tenantID:miniAppID:for:)`` when it needs no suspension: nil when what it serves
    /// must be recorded first (the full path answers then).
    public func infoInMemory(
        _ answer: CachedAnswer, tenantID: String, miniAppID: String, for audience: @autoclosure () -> ReleaseAudience
    ) throws -> CachedAnswer? {
        guard let policy = table.policy(tenantID: tenantID, miniAppID: miniAppID) else { return answer }
        let audience = audience()
        let latest = try latestVersion(of: answer)
        let decision = policy.decision(latest: latest, for: audience, at: clock.now())
        if let serving = servingToRecord(decision, policy, latest: latest, userID: audience.userID),
            !isRecorded(serving)
        {
            return nil
        }
        return try infoAnswer(answer, counted(decision, policy, latest: latest))
    }

    private func infoAnswer(_ answer: CachedAnswer, _ decision: ReleaseDecision) throws -> CachedAnswer {
        switch decision {
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
    ) async throws -> CachedAnswer {
        guard table.hasPolicies(tenantID: tenantID) else { return answer }
        var list = try MiniAppService.decodeAnswer(MiniAppAnswers.MiniAppList.self, answer)
        let (items, servings) = served(list.items, tenantID: tenantID, for: audience(), id: \.id, version: \.version)
        await record(servings)
        guard let items else { return answer }
        list.items = items
        return Self.derived(from: answer, body: try MiniAppAnswers.encode(list))
    }

    /// Platform-shaped infos (the RAS API) as `audience` sees them.
    public func platformInfos(
        _ infos: [PlatformMiniAppInfo], tenantID: String, for audience: @autoclosure () -> ReleaseAudience
    ) async -> [PlatformMiniAppInfo] {
        guard table.hasPolicies(tenantID: tenantID) else { return infos }
        let (items, servings) = served(infos, tenantID: tenantID, for: audience(), id: \.id, version: \.version)
        await record(servings)
        return items ?? infos
    }

    /// `items` with the versions `audience` gets (nil when that changes nothing), and what
    /// must be recorded as served.
    private func served<Item>(
        _ items: [Item], tenantID: String, for audience: ReleaseAudience, id: KeyPath<Item, String>,
        version: WritableKeyPath<Item, PlatformMiniAppInfo.Version>
    ) -> (items: [Item]?, servings: [Serving]) {
        let policies = table.policies(tenantID: tenantID)
        let now = clock.now()
        var changed = false
        var servings: [Serving] = []
        let result = items.compactMap { item -> Item? in
            guard let policy = policies[item[keyPath: id]] else { return item }
            let latest = item[keyPath: version].versionId
            let decision = policy.decision(latest: latest, for: audience, at: now)
            if let serving = servingToRecord(decision, policy, latest: latest, userID: audience.userID) {
                servings.append(serving)
            }
            switch counted(decision, policy, latest: latest) {
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
        return (changed ? result : nil, servings)
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
