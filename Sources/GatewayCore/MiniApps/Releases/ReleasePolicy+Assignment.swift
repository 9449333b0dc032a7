import Foundation

/// Who is asking which version of a mini app to run.
public struct ReleaseAudience: Sendable, Equatable {
    /// The signed-in user (the token's subject); nil: anonymous, who always gets stable.
    public var userID: String?
    public var hostAppVersion: HostAppVersion?
    public var platform: ClientPlatform?
    public var locale: String?

    public init(
        userID: String?, hostAppVersion: HostAppVersion? = nil, platform: ClientPlatform? = nil, locale: String? = nil
    ) {
        self.userID = userID
        self.hostAppVersion = hostAppVersion
        self.platform = platform
        self.locale = locale
    }
}

extension ReleasePolicy {
    /// Whether `audience` gets the candidate at `now`: an active or paused candidate, a
    /// signed-in user not on the deny list, and either on the allow list or inside the
    /// segment with a bucket (``RolloutBucket``) below the share.
    public func offersCandidate(to audience: ReleaseAudience, at now: Date) -> Bool {
        guard let candidate, candidate.state != .halted, let userID = audience.userID,
            !candidate.denyUsers.contains(userID), !isWithdrawn(candidate.version)
        else { return false }
        if candidate.allowUsers.contains(userID) { return true }
        guard candidate.segment.contains(audience) else { return false }
        let share = candidate.share(at: now).basisPoints
        guard share > 0 else { return false }
        return RolloutBucket.of(tenantID: tenantID, miniAppID: miniAppID, version: candidate.version, userID: userID)
            < share
    }

    /// The version `audience` gets at `now`; nil: the platform's latest published version.
    /// A withdrawn version is replaced by its stand-in (followed at most a few times).
    public func version(for audience: ReleaseAudience, at now: Date) -> String? {
        let chosen = offersCandidate(to: audience, at: now) ? candidate?.version : stable
        return replacingWithdrawn(chosen)
    }

    /// Whether `version` was withdrawn.
    public func isWithdrawn(_ version: String) -> Bool {
        withdrawn.contains { $0.version == version }
    }

    /// `version`, or what to use instead when it was withdrawn.
    public func replacingWithdrawn(_ version: String?) -> String? {
        var current = version
        for _ in 0..<8 {
            guard let name = current, let entry = withdrawn.first(where: { $0.version == name }) else { return current }
            current = entry.useInstead
        }
        return nil
    }
}

/// Which version of a mini app one request is answered with.
public enum ReleaseDecision: Sendable, Equatable {
    /// The platform's latest published version, as the platform lists it.
    case latest
    /// Another version than the platform's latest (a stable, a candidate, a stand-in).
    case version(String)
    /// No version may be offered: this one was withdrawn and nothing stands in for it.
    case withdrawn(String)
}

extension ReleasePolicy {
    /// What `audience` is answered with at `now`, when the platform's latest published
    /// version is `latest`: the candidate for its cohort, else stable (the platform's latest
    /// when none is set), a withdrawn choice replaced by its stand-in.
    public func decision(latest: String, for audience: ReleaseAudience, at now: Date) -> ReleaseDecision {
        let chosen = offersCandidate(to: audience, at: now) ? candidate?.version : stable
        let served = replacingWithdrawn(chosen ?? latest) ?? latest
        if isWithdrawn(served) { return .withdrawn(served) }
        return served == latest ? .latest : .version(served)
    }
}
