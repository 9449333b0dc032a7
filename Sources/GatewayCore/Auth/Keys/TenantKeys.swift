import Foundation

/// A tenant's signing keys read together, and what their schedules make of them at a time:
/// which key signs each algorithm, which are published, each key's phase and its next step.
public struct TenantKeys: Sendable {
    /// Every key of the tenant as stored, newest first.
    public let keys: [SigningKey]

    public init(_ keys: [SigningKey]) {
        self.keys = keys
    }

    /// The key that signs new `algorithm` tokens at `now`: of the keys that may sign then, the
    /// one whose signing time came last (a newer key supersedes an older one by itself).
    public func signer(_ algorithm: SigningKey.Algorithm, at now: Date) -> SigningKey? {
        keys.filter { $0.algorithm == algorithm && $0.maySign(at: now) }.max { a, b in
            (a.schedule.signFrom, a.createdAt) < (b.schedule.signFrom, b.createdAt)
        }
    }

    /// The keys the JWKS lists at `now`, newest first.
    public func published(at now: Date) -> [SigningKey] {
        keys.filter { $0.isPublished(at: now) }
    }

    /// The published key `kid` at `now`, nil when there is none (unknown or retired).
    public func published(kid: String, at now: Date) -> SigningKey? {
        keys.first { $0.kid == kid && $0.isPublished(at: now) }
    }

    /// Where `key` is in its life at `now`.
    public func phase(of key: SigningKey, at now: Date) -> SigningKey.Phase {
        guard key.isPublished(at: now) else { return .retired }
        if key.schedule.signFrom > now { return .next }
        return signer(key.algorithm, at: now)?.kid == key.kid ? .signing : .verifyOnly
    }

    /// The next phase `key` enters after `now` by its schedule (or a newer key's), and when;
    /// nil when nothing is scheduled (a verify-only key stays until it is retired).
    public func nextStep(of key: SigningKey, at now: Date) -> (phase: SigningKey.Phase, at: Date)? {
        switch phase(of: key, at: now) {
        case .retired:
            return nil
        case .next:
            return (.signing, key.schedule.signFrom)
        case .signing:
            let superseded = keys.filter {
                $0.kid != key.kid && $0.algorithm == key.algorithm && $0.isPublished(at: now)
                    && $0.schedule.signFrom > now
            }.map(\.schedule.signFrom).min()
            let ends = [superseded, key.schedule.signUntil, key.schedule.unpublishAt].compactMap { $0 }.min()
            guard let ends else { return nil }
            return (ends == key.schedule.unpublishAt ? .retired : .verifyOnly, ends)
        case .verifyOnly:
            return key.schedule.unpublishAt.map { (.retired, $0) }
        }
    }

    /// Algorithms with no key that signs at `now`: a tenant's first use makes one (and so does a
    /// tenant whose only signer was retired at once, as a compromised key is).
    public func algorithmsWithoutSigner(at now: Date) -> [SigningKey.Algorithm] {
        SigningKey.Algorithm.allCases.filter { signer($0, at: now) == nil }
    }
}

extension SigningKey.Schedule {
    /// The schedule as both engines store it, in milliseconds.
    public typealias Stored = (signFrom: Int64?, signUntil: Int64?, unpublishAt: Int64?)

    public var stored: Stored {
        (StoreClock.milliseconds(signFrom), signUntil.map(StoreClock.milliseconds), unpublishAt.map(StoreClock.milliseconds))
    }

    /// A stored schedule; a key from before schedules (no sign-from) signs from its creation.
    public init(stored: Stored, createdAtMS: Int64) {
        self.init(
            signFrom: StoreClock.date(stored.signFrom ?? createdAtMS), signUntil: stored.signUntil.map(StoreClock.date),
            unpublishAt: stored.unpublishAt.map(StoreClock.date))
    }
}
