/// What a push provider said about one delivery, in the gateway's terms.
public enum ProviderAnswer: Sendable, Equatable {
    /// Accepted for delivery.
    case accepted
    /// The token is dead (APNs `Unregistered`/`BadDeviceToken`, FCM `UNREGISTERED`): remove the device.
    case invalidToken(reason: String)
    /// A transient failure (429, 5xx, connection): call again later, not before `retryAfter`
    /// when the provider said so. `providerFault` says whether it counts against the
    /// provider's health (a 429 does not).
    case retryable(reason: String, retryAfter: Duration?, providerFault: Bool)
    /// Refused for good (a bad payload, a bad or missing credential): do not call again.
    case rejected(reason: String)
}

/// One push provider's API (APNs, FCM): one call per device copy. Implementations answer,
/// never throw: a failure is an answer (``ProviderAnswer/retryable(reason:retryAfter:providerFault:)``).
public protocol PushProviderClient: Sendable {
    func send(_ delivery: ClaimedDelivery, credentials: PushCredentials) async -> ProviderAnswer
}
