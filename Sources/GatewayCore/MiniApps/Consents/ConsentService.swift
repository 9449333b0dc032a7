import Foundation

/// What withdrawing `rakuten.miniapp.user.ACCESS_TOKEN` acts on: the mini app's
/// outstanding access tokens (``MiniAppAccessTokenService`` issues them).
public protocol MiniAppTokenRevoker: Sendable {
    /// Revokes every live token issued to `owner`; returns how many.
    @discardableResult
    func revokeAll(_ owner: UserMiniAppKey) async throws -> Int
}

/// Reads and changes a user's consents, validating changes against the mini app's manifest.
/// Withdrawing `ACCESS_TOKEN` also revokes the mini app's outstanding access tokens.
public struct ConsentService: Sendable, MiniAppOpenRecorder {
    private let store: any ConsentStore
    private let tokens: (any MiniAppTokenRevoker)?

    /// - Parameter tokens: revoked when the user withdraws `ACCESS_TOKEN` (nil only where
    ///   no mini-app access tokens are issued).
    public init(store: any ConsentStore, tokens: (any MiniAppTokenRevoker)?) {
        self.store = store
        self.tokens = tokens
    }

    /// Records that the user opened the mini app now: it leads their recently used mini apps.
    public func recordOpen(_ owner: UserMiniAppKey) async throws {
        try await store.touch(owner)
    }

    /// The user's consents for `manifest`'s mini app.
    public func view(_ owner: UserMiniAppKey, manifest: MiniAppPermissionManifest) async throws -> ConsentView {
        ConsentView(consents: try await store.consents(of: owner), manifest: manifest)
    }

    /// Stores `changes` when every name is a known custom permission the manifest
    /// declares (and revokes the mini app's tokens when `ACCESS_TOKEN` is withdrawn); otherwise throws ``ConsentError/invalidPermissions(unknown:undeclared:)``
    /// and stores nothing.
    public func update(
        _ owner: UserMiniAppKey, manifest: MiniAppPermissionManifest, changes: [String: ConsentStatus]
    ) async throws -> ConsentView {
        try Self.validate(changes.keys, manifest: manifest)
        let stored = try await store.setConsents(changes, for: owner)
        if changes[CustomPermission.accessToken.rawValue] == .denied, let tokens {
            try await tokens.revokeAll(owner)
        }
        return ConsentView(consents: stored, manifest: manifest)
    }

    /// The user's entry for one mini app, read against the manifest `manifest` returns
    /// (asked only for a mini app the user has used; nil: the raw answers only).
    /// - Throws: ``ConsentError/notUsed(miniAppID:)`` when the user has never used it.
    public func userMiniApp(
        _ owner: UserMiniAppKey, manifest: @Sendable () async throws -> MiniAppPermissionManifest?
    ) async throws -> UserMiniAppEntry {
        let consents = try await store.consents(of: owner)
        guard consents.lastUsedAt != nil else { throw ConsentError.notUsed(miniAppID: owner.miniAppID) }
        return UserMiniAppEntry(
            consents: consents, view: try await manifest().map { ConsentView(consents: consents, manifest: $0) })
    }

    /// The mini apps the user has used, most recent first (at most `limit` when given),
    /// each read against its manifest when `manifest` returns one (else `nil`: the caller
    /// shows the raw answers). Manifests are read concurrently.
    public func userMiniApps(
        tenantID: String, userID: String, limit: Int? = nil,
        manifest: @escaping @Sendable (String) async throws -> MiniAppPermissionManifest?
    ) async throws -> [UserMiniAppEntry] {
        let used = try await store.userMiniApps(tenantID: tenantID, userID: userID, limit: limit)
        let views = try await withThrowingTaskGroup(of: (Int, ConsentView?).self) { group in
            for (index, consents) in used.enumerated() {
                group.addTask {
                    (
                        index,
                        try await manifest(consents.miniAppID).map { ConsentView(consents: consents, manifest: $0) }
                    )
                }
            }
            var views = [ConsentView?](repeating: nil, count: used.count)
            for try await (index, view) in group { views[index] = view }
            return views
        }
        return zip(used, views).map { UserMiniAppEntry(consents: $0, view: $1) }
    }

    /// Throws unless every name is known and declared by `manifest`.
    public static func validate(
        _ names: some Sequence<String>, manifest: MiniAppPermissionManifest
    ) throws(ConsentError) {
        let declared = manifest.declaredNames
        var unknown: [String] = []
        var undeclared: [String] = []
        for name in names {
            if CustomPermission(rawValue: name) == nil {
                unknown.append(name)
            } else if !declared.contains(name) {
                undeclared.append(name)
            }
        }
        guard unknown.isEmpty, undeclared.isEmpty else {
            throw .invalidPermissions(unknown: unknown.sorted(), undeclared: undeclared.sorted())
        }
    }
}
