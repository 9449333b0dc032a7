import Foundation

/// Backchannel requests and their answers where every replica sees them (the shared cache:
/// Redis with replicas, the process's own cache alone). Each step that must happen once is
/// one atomic cache operation: a user's pending slot (`SET NX`), the answer (`SET NX`), the
/// redemption (`SET NX`), the poll gate (`SET NX` with the interval as its life).
///
/// A ping client's `client_notification_token` is a bearer secret: it is kept sealed
/// (``SecretSealer``, bound to the tenant and request) and opened only when read back.
public struct BackchannelRequests: Sendable {
    private let cache: any Cache
    private let clock: WallClock
    private let sealer: SecretSealer?
    /// How long a request is remembered after it expires, so a late poll hears `expired_token`.
    static let graceSeconds = 300

    /// - Parameter sealer: seals notification tokens in the cache; the gateway always gives one
    ///   (nil keeps them as they are, for tools and tests without a master key).
    public init(cache: any Cache, clock: WallClock, sealer: SecretSealer? = nil) {
        self.cache = cache
        self.clock = clock
        self.sealer = sealer
    }

    /// What the cache keeps of `request`: its notification token sealed.
    private func stored(_ request: BackchannelRequest) throws -> [UInt8] {
        var copy = request
        if let sealer, let token = request.notificationToken {
            copy.notificationToken = try sealer.seal(token, context: Self.sealingContext(request))
        }
        return Array(try JSONEncoder().encode(copy))
    }

    /// A request read back from the cache, its notification token opened (nil if it cannot be).
    private func read(_ bytes: [UInt8]) -> BackchannelRequest? {
        guard var request = try? JSONDecoder().decode(BackchannelRequest.self, from: Data(bytes)) else { return nil }
        if let sealer, let sealed = request.notificationToken {
            request.notificationToken = try? sealer.open(sealed, context: Self.sealingContext(request))
        }
        return request
    }

    private static func sealingContext(_ request: BackchannelRequest) -> String {
        "ciba:\(request.tenantID):\(request.id):client_notification_token"
    }

    /// Why a request was not admitted.
    public enum Refusal: Error, Sendable, Equatable {
        /// More requests this minute than the user's (or the client's) allowance.
        case tooManyRequests
        /// The user has ``BackchannelRules/maxPendingPerUser`` requests waiting already.
        case tooManyPending
    }

    private static func key(_ tenantID: String, _ kind: String, _ id: String) -> String {
        "ciba:\(tenantID):\(kind):\(id)"
    }

    /// Admits `request` for the user `holder` names (a subject, or a stand-in for a hint that
    /// named nobody, so both are counted alike): the client's and the user's rate this minute,
    /// then a free pending slot. Answers the request with its slot.
    public func admit(_ request: BackchannelRequest, holder: String) async throws -> BackchannelRequest {
        let minute = Int64(clock.now().timeIntervalSince1970) / 60
        let window = Duration.seconds(120)
        let perClient = try await cache.increment(
            Self.key(request.tenantID, "rate-c", "\(request.clientID):\(minute)"), by: 1, ttl: window)
        let perUser = try await cache.increment(
            Self.key(request.tenantID, "rate-u", "\(holder):\(minute)"), by: 1, ttl: window)
        guard perClient <= BackchannelRules.perClientPerMinute, perUser <= BackchannelRules.perUserPerMinute else {
            throw Refusal.tooManyRequests
        }
        let life = Duration.seconds(max(1, Int(request.expiresAt.timeIntervalSince(clock.now()).rounded(.up))))
        var admitted = request
        for slot in 0..<BackchannelRules.maxPendingPerUser {
            let claimed = try await cache.setIfAbsent(
                Self.key(request.tenantID, "slot", "\(holder):\(slot)"), Array(request.id.utf8), ttl: life)
            guard claimed else { continue }
            admitted.slot = slot
            try await cache.set(
                Self.key(request.tenantID, "req", request.id), try stored(admitted),
                ttl: life + .seconds(Self.graceSeconds))
            return admitted
        }
        throw Refusal.tooManyPending
    }

    /// The request `id` of the tenant, while it is remembered.
    public func request(tenantID: String, id: String) async throws -> BackchannelRequest? {
        guard let bytes = try await cache.get(Self.key(tenantID, "req", id)) else { return nil }
        return read(bytes)
    }

    /// The user's requests that wait for an answer and have not expired, oldest first.
    public func pending(tenantID: String, subject: String) async throws -> [BackchannelRequest] {
        let slots = (0..<BackchannelRules.maxPendingPerUser).map { Self.key(tenantID, "slot", "\(subject):\($0)") }
        let ids = try await cache.getMany(slots).compactMap { $0.map { String(decoding: $0, as: UTF8.self) } }
        guard !ids.isEmpty else { return [] }
        let now = clock.now()
        // Each id's request and answer in one round trip, kept paired by position (a request
        // gone from the cache must not shift the answers onto the wrong requests).
        let found = try await cache.getMany(
            ids.map { Self.key(tenantID, "req", $0) } + ids.map { Self.key(tenantID, "answer", $0) })
        return ids.indices.compactMap { index -> BackchannelRequest? in
            guard found[ids.count + index] == nil, let bytes = found[index],
                let request = try? JSONDecoder().decode(BackchannelRequest.self, from: Data(bytes)),
                request.expiresAt > now, request.subject == subject
            else { return nil }
            return request
        }.sorted { $0.requestedAt < $1.requestedAt }
    }

    /// Records the user's answer unless one was given already (on any replica); frees the
    /// user's slot. Answers whether this answer was the one recorded.
    public func answer(_ request: BackchannelRequest, _ answer: BackchannelAnswer) async throws -> Bool {
        let life = Duration.seconds(
            max(1, Int(request.expiresAt.timeIntervalSince(clock.now()).rounded(.up))) + Self.graceSeconds)
        let recorded = try await cache.setIfAbsent(
            Self.key(request.tenantID, "answer", request.id), Array(try JSONEncoder().encode(answer)), ttl: life)
        if recorded, let subject = request.subject, let slot = request.slot {
            _ = try await cache.delete([Self.key(request.tenantID, "slot", "\(subject):\(slot)")])
        }
        return recorded
    }

    /// The answer to the request, if the user gave one.
    public func answer(tenantID: String, id: String) async throws -> BackchannelAnswer? {
        guard let bytes = try await cache.get(Self.key(tenantID, "answer", id)) else { return nil }
        return try? JSONDecoder().decode(BackchannelAnswer.self, from: Data(bytes))
    }

    /// A poll of the request: nil when it keeps to its interval, else the interval it must
    /// keep from now on (grown by ``BackchannelRules/slowDownStep``; CIBA §11 `slow_down`).
    public func poll(_ request: BackchannelRequest) async throws -> Int? {
        let slowKey = Self.key(request.tenantID, "slow", request.id)
        let life = Duration.seconds(BackchannelRules.expiryRange.upperBound + Self.graceSeconds)
        let grown = try await cache.increment(slowKey, by: 0, ttl: life)
        let gateKey = Self.key(request.tenantID, "poll", request.id)
        if try await cache.setIfAbsent(gateKey, [1], ttl: Self.gate(request.interval + Int(grown))) {
            return nil
        }
        let next = try await cache.increment(slowKey, by: Int64(BackchannelRules.slowDownStep), ttl: life)
        let raised = request.interval + Int(next)
        // The raised interval runs from this poll: the next one inside it is too soon again.
        try await cache.set(gateKey, [1], ttl: Self.gate(raised))
        return raised
    }

    /// The poll gate's life for `interval` seconds: a poll a little early (network jitter)
    /// still counts as on time.
    private static func gate(_ interval: Int) -> Duration {
        .milliseconds(max(1, interval * 1_000 - 250))
    }

    /// Marks an approved request as redeemed: true exactly once, on whichever replica.
    public func redeem(_ request: BackchannelRequest) async throws -> Bool {
        try await cache.setIfAbsent(
            Self.key(request.tenantID, "redeemed", request.id), [1],
            ttl: .seconds(BackchannelRules.expiryRange.upperBound + Self.graceSeconds))
    }
}
