import Crypto
import Foundation

/// The permission part of one mini-app version's manifest (`reqPermissions`,
/// `optPermissions`, `accessTokenPermissions`), with reasons in the requested language.
public struct MiniAppPermissionManifest: Sendable, Equatable, Codable {
    /// One declared permission and the mini app's (localized) reason.
    public struct Permission: Sendable, Equatable, Codable {
        /// Custom permission name.
        public var name: String
        /// Why the mini app asks, in the manifest's language.
        public var reason: String?

        public init(name: String, reason: String? = nil) {
            self.name = name
            self.reason = reason
        }
    }

    /// An audience and the scopes the mini app may request for it.
    public struct AccessTokenPermission: Sendable, Equatable, Codable {
        /// Audience, matched exactly.
        public var audience: String
        /// Scopes that may be requested for the audience.
        public var scopes: [String]

        public init(audience: String, scopes: [String]) {
            self.audience = audience
            self.scopes = scopes
        }
    }

    /// The mini app.
    public var miniAppID: String
    /// The mini-app version the manifest belongs to.
    public var versionID: String
    /// `reqPermissions`: all must be ALLOWED before launch.
    public var required: [Permission]
    /// `optPermissions`.
    public var optional: [Permission]
    /// `accessTokenPermissions`: audiences and their scopes.
    public var accessTokenPermissions: [AccessTokenPermission]

    public init(
        miniAppID: String, versionID: String, required: [Permission] = [], optional: [Permission] = [],
        accessTokenPermissions: [AccessTokenPermission] = []
    ) {
        self.miniAppID = miniAppID
        self.versionID = versionID
        self.required = required
        self.optional = optional
        self.accessTokenPermissions = accessTokenPermissions
    }

    /// Every declared permission name (required first).
    public var declaredNames: Set<String> { Set((required + optional).map(\.name)) }

    /// A short hash of the content: changes whenever anything in the manifest changes.
    public var fingerprint: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(self)) ?? Data()
        return LowercaseHex.string(SHA256.hash(data: data).prefix(12))
    }
}
