/// Which host-app versions a tenant still serves and which it asks to update.
///
/// Versions are ``HostAppVersion`` texts; ``TenantValidator`` checks the grammar, that
/// `minimumVersion ≤ latestVersion` when both are set, and that `updateURL` is https.
public struct HostAppVersionPolicy: Sendable, Equatable, Codable {
    /// Below this version the host app must update before it is used; nil = no minimum.
    public var minimumVersion: String?
    /// Below this version an update is recommended; nil = no recommendation.
    public var latestVersion: String?
    /// Where users get the update (an https URL, e.g. the store page); nil = not given.
    public var updateURL: String?

    public init(minimumVersion: String? = nil, latestVersion: String? = nil, updateURL: String? = nil) {
        self.minimumVersion = minimumVersion
        self.latestVersion = latestVersion
        self.updateURL = updateURL
    }

    /// What a host app at `version` has to do: ``HostAppUpdate/required`` below the
    /// minimum, ``HostAppUpdate/recommended`` below the latest, else ``HostAppUpdate/none``.
    /// An unparsable stored version (never written by a validating store) is ignored.
    public func verdict(for version: HostAppVersion) -> HostAppUpdate {
        if let minimum = minimumVersion.flatMap({ HostAppVersion($0) }), version < minimum { return .required }
        if let latest = latestVersion.flatMap({ HostAppVersion($0) }), version < latest { return .recommended }
        return .none
    }
}

/// The update verdict for one host-app version.
public enum HostAppUpdate: String, Sendable, CaseIterable {
    /// The version is current (or the tenant sets no versions).
    case none
    /// A newer version exists; the app keeps working.
    case recommended
    /// The version is below the tenant's minimum: the app must update first.
    case required
}
