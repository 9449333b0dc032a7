import Foundation

/// One signing key as operators read it (`gatewayctl keys list --json`, the admin API): its
/// phase now and its next step, never its private half.
public struct SigningKeyDocument: Sendable, Codable, Equatable {
    public var kid: String
    public var alg: String
    public var state: String
    public var createdAt: Date
    public var signing: Bool
    public var signFrom: Date
    public var signUntil: Date?
    public var unpublishAt: Date?
    /// The phase the key enters next by the schedules, and when.
    public var nextState: String?
    public var nextAt: Date?

    /// `key` as it stands at `now` among the tenant's `keys`.
    public init(_ key: SigningKey, in keys: TenantKeys, at now: Date) {
        let phase = keys.phase(of: key, at: now)
        let next = keys.nextStep(of: key, at: now)
        kid = key.kid
        alg = key.algorithm.rawValue
        state = phase.rawValue
        createdAt = key.createdAt
        signing = phase == .signing
        signFrom = key.schedule.signFrom
        signUntil = key.schedule.signUntil
        unpublishAt = key.schedule.unpublishAt
        nextState = next?.phase.rawValue
        nextAt = next?.at
    }

    /// The order the store lists keys in: newest first.
    public static func newestFirst(_ a: SigningKeyDocument, _ b: SigningKeyDocument) -> Bool {
        (a.createdAt, a.kid) > (b.createdAt, b.kid)
    }
}

/// What `retire` did: the key that signs no more, when it leaves the JWKS, and the key
/// brought forward to sign in its place (if one had to be).
public struct SigningKeyRetirement: Sendable, Codable, Equatable {
    public var retired: String
    public var tenant: String
    public var unpublishAt: Date
    public var promoted: String?

    public init(retired: String, tenant: String, unpublishAt: Date, promoted: String?) {
        self.retired = retired
        self.tenant = tenant
        self.unpublishAt = unpublishAt
        self.promoted = promoted
    }
}
