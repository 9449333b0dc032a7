import Foundation

/// One backchannel authentication request (OpenID CIBA Core 1.0 §7): a client asked for a
/// user's approval, which the user gives or refuses in the super app.
public struct BackchannelRequest: Sendable, Codable, Equatable {
    /// How the client learns the answer (CIBA §5). Push mode is left out, as FAPI CIBA leaves it.
    public enum DeliveryMode: String, Sendable, Codable, CaseIterable {
        case poll, ping
    }

    /// `auth_req_id`: 32 random bytes, base64url.
    public var id: String
    public var tenantID: String
    public var clientID: String
    /// The user the hint named; nil when it named nobody (such a request is never approved,
    /// and answers like one that is: `expired_token` at its end).
    public var subject: String?
    public var scopes: [String]
    /// Shown on both devices (at most ``BackchannelRules/bindingMessageMaxLength``).
    public var bindingMessage: String?
    /// `acr_values` the client asked for, in its order.
    public var acrValues: [String]
    /// The address the client asked from.
    public var address: String?
    public var requestedAt: Date
    public var expiresAt: Date
    /// Seconds the client waits between polls; grows by 5 with each `slow_down`.
    public var interval: Int
    public var mode: DeliveryMode
    /// The user's pending slot this request holds (``BackchannelRequests``).
    public var slot: Int?
    /// Ping mode's `client_notification_token`: the bearer of the ping to the client. Kept in
    /// the shared cache only while the request lives.
    public var notificationToken: String?

    public init(
        id: String, tenantID: String, clientID: String, subject: String?, scopes: [String], bindingMessage: String?,
        acrValues: [String], address: String?, requestedAt: Date, expiresAt: Date, interval: Int, mode: DeliveryMode,
        slot: Int? = nil
    ) {
        self.id = id
        self.tenantID = tenantID
        self.clientID = clientID
        self.subject = subject
        self.scopes = scopes
        self.bindingMessage = bindingMessage
        self.acrValues = acrValues
        self.address = address
        self.requestedAt = requestedAt
        self.expiresAt = expiresAt
        self.interval = interval
        self.mode = mode
        self.slot = slot
    }
}

/// The user's answer to a ``BackchannelRequest``: given once, on whichever replica.
public struct BackchannelAnswer: Sendable, Codable, Equatable {
    public var approved: Bool
    /// When the user approved (the ID token's `auth_time`).
    public var at: Date
    /// The `acr` the approval satisfied (a step-up's), nil for a plain approval.
    public var acr: String?
    /// How the user proved it was them at the approval (`amr`), when a step-up did.
    public var amr: [String]?

    public init(approved: Bool, at: Date, acr: String? = nil, amr: [String]? = nil) {
        self.approved = approved
        self.at = at
        self.acr = acr
        self.amr = amr
    }
}
