/// What the mini-app operations refuse, in the domain's terms; GatewayServer maps each
/// case to its problem document in one place (`Sources/GatewayServer/Problems/`).
public enum MiniAppError: Error, Sendable, Equatable {
    /// Neither upstream knows the mini app or version.
    case miniAppNotFound
    /// The platform knows the mini app but has no published version of it.
    case noPublishedVersion
    /// The bundle's signature is missing or does not verify, and the tenant requires verification.
    case invalidSignature
    /// The platform does not know the preview code.
    case previewNotFound
    /// The platform does not know the signing key.
    case publicKeyNotFound
    /// The tenant withdrew this version (staged releases); `useInstead` is the version to run
    /// instead, nil when no version of the mini app may be offered.
    case versionWithdrawn(version: String, useInstead: String?)
    /// An upstream call failed (a 404 of it is one of the cases above).
    case upstream(UpstreamError, Upstream)

    /// Which backend failed (named in the problem's detail).
    public enum Upstream: String, Sendable, Equatable {
        case platform = "mini-app platform"
        case provisioning = "provisioning service"
    }
}

/// A refusal the answer cache keeps like an answer, so a missing app is not asked for
/// again until the entry expires. The cached body is the raw value (the bytes the cache
/// has always held, so replicas of different versions read each other's entries).
public enum NegativeAnswer: String, Sendable, Codable, CaseIterable {
    case miniAppNotFound = "miniapp_not_found"
    case noPublishedVersion = "no_published_version"
    case invalidSignature = "invalid_signature"

    /// The refusal it stands for.
    public var error: MiniAppError {
        switch self {
        case .miniAppNotFound: .miniAppNotFound
        case .noPublishedVersion: .noPublishedVersion
        case .invalidSignature: .invalidSignature
        }
    }

    /// The cache entry (status 422 for a refused signature, 404 otherwise, as stored before).
    var cached: AnswerCache.Loaded {
        .init(status: self == .invalidSignature ? 422 : 404, body: Array(rawValue.utf8))
    }

    /// The negative answer a non-200 cache entry holds (an unknown body reads as not found).
    init(cached answer: CachedAnswer) {
        self = NegativeAnswer(rawValue: String(decoding: answer.body, as: UTF8.self)) ?? .miniAppNotFound
    }
}
