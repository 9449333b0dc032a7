import Foundation

/// A trusted issuer as operators read it (`gatewayctl issuer list --json`, the admin API, the
/// audit trail): the introspection client's secret masked.
public struct TrustedIssuerDocument: Sendable, Codable, Equatable {
    public var tenant: String
    public var issuer: String
    public var audience: String
    public var subjectClaim: String
    public var jwksURI: String?
    public var introspectionClientID: String?
    public var introspectionSecret: String?
    public var introspectionCacheSeconds: Int?

    public init(_ trust: TrustedIssuer) {
        tenant = trust.tenantID
        issuer = trust.issuer
        audience = trust.audience
        subjectClaim = trust.subjectClaim
        jwksURI = trust.jwksURI
        introspectionClientID = trust.introspection?.clientID
        introspectionSecret = trust.introspection?.clientSecret?.masked
        introspectionCacheSeconds = trust.introspection?.cacheSeconds
    }
}

/// The audit record of a trust change, by the admin API or by gatewayctl on the database: the
/// masked documents before and after (`old` nil: a new trust; `new` nil: untrusted).
public enum TrustedIssuerTrail {
    public static func draft(
        _ old: TrustedIssuer?, _ new: TrustedIssuer?, actor: AuditActor, requestID: String?, time: Date
    ) -> AuditDraft {
        let trust = (new ?? old)!
        return .documents(
            .trustedIssuer, tenant: trust.tenantID, id: String(trust.issuer.prefix(200)),
            before: old.map(TrustedIssuerDocument.init), after: new.map(TrustedIssuerDocument.init), actor: actor,
            requestID: requestID, time: time)
    }
}
