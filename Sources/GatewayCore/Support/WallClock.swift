import Foundation

/// The wall clock the gateway reads for token lifetimes, rate windows and sign-in throttles.
/// One value is made where the gateway is assembled (`GatewayBootstrap`) and handed down, so
/// a test can run a whole gateway on a clock it moves instead of sleeping.
public struct WallClock: Sendable {
    /// The current time.
    public let now: @Sendable () -> Date
    /// Monotonic time for short lifetimes (memos), which must not jump with the wall clock.
    public let instant: @Sendable () -> ContinuousClock.Instant

    public init(
        now: @escaping @Sendable () -> Date,
        instant: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.now = now
        self.instant = instant
    }

    /// The system's clock.
    public static var system: WallClock { WallClock { Date() } }

    /// Now in whole milliseconds since 1970, as the stores and counters keep times.
    public func milliseconds() -> Int64 { StoreClock.milliseconds(now()) }
}
