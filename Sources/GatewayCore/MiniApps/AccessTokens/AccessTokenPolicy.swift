/// A mini app's request for an access token.
public struct AccessTokenRequest: Sendable, Equatable, Codable {
    /// Requested audience.
    public var audience: String
    /// Requested scopes.
    public var scopes: [String]

    public init(audience: String, scopes: [String]) {
        self.audience = audience
        self.scopes = scopes
    }
}

/// The error types mini-app SDKs expect in a refused access-token request.
public enum AccessTokenErrorType: String, Sendable, Equatable, Codable, CaseIterable {
    case authorizationFailure = "AuthorizationFailureError"
    case audienceNotSupported = "AudienceNotSupportedError"
    case scopesNotSupported = "ScopesNotSupportedError"
}

/// The allow/deny answer for one request; cacheable (Codable).
public enum AccessTokenAnswer: Sendable, Equatable, Codable {
    case allowed
    /// `type` is the SDK error type name (`type.rawValue`), `message` a human sentence.
    case denied(type: AccessTokenErrorType, message: String)
}

/// The documented access-token rules, evaluated in order:
/// 1. the ACCESS_TOKEN custom permission is ALLOWED, else `AuthorizationFailureError`;
/// 2. scopes are not empty, else `ScopesNotSupportedError`;
/// 3. the audience equals a manifest `accessTokenPermissions` entry exactly, else `AudienceNotSupportedError`;
/// 4. the requested scopes are a subset of that entry's scopes, else `ScopesNotSupportedError`.
public enum AccessTokenPolicy {
    /// Evaluates `request` for a user whose ACCESS_TOKEN answer is `consent` (nil = never answered).
    public static func evaluate(
        _ request: AccessTokenRequest, manifest: MiniAppPermissionManifest, consent: ConsentStatus?
    ) -> AccessTokenAnswer {
        guard consent == .allowed else {
            return .denied(
                type: .authorizationFailure,
                message: "the user has not allowed \(CustomPermission.accessToken.rawValue) for this mini app")
        }
        guard !request.scopes.isEmpty else {
            return .denied(type: .scopesNotSupported, message: "no scopes requested; request at least one scope")
        }
        guard let entry = manifest.accessTokenPermissions.first(where: { $0.audience == request.audience }) else {
            return .denied(
                type: .audienceNotSupported,
                message: "audience \"\(request.audience)\" is not declared in the mini app's manifest")
        }
        let allowed = Set(entry.scopes)
        let extra = Set(request.scopes).subtracting(allowed).sorted()
        guard extra.isEmpty else {
            return .denied(
                type: .scopesNotSupported,
                message: "scopes not declared for audience \"\(request.audience)\": \(extra.joined(separator: ", "))")
        }
        return .allowed
    }
}
