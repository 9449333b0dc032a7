import Foundation
import GatewayCore
import Synchronization

/// A wall clock a test sets and moves: hand ``clock`` to a gateway, then move time instead
/// of sleeping.
final class ManualClock: Sendable {
    private let current: Mutex<Date>
    /// How far the test has moved time (monotonic instants run ahead of the system's by it).
    private let advanced = Mutex<Duration>(.zero)

    init(_ start: Date) {
        current = Mutex(start)
    }

    /// Starting one second into the current `window` of the system clock (a fixed window
    /// such as the rate limiter's), so nothing a test does straddles a boundary.
    static func startOfWindow(_ seconds: Int) -> ManualClock {
        let now = Date().timeIntervalSince1970
        return ManualClock(Date(timeIntervalSince1970: (now / Double(seconds)).rounded(.down) * Double(seconds) + 1))
    }

    func advance(by interval: Duration) {
        current.withLock { $0 += Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18 }
        advanced.withLock { $0 += interval }
    }

    var clock: WallClock {
        WallClock(
            now: { self.current.withLock { $0 } }, instant: { ContinuousClock.now + self.advanced.withLock { $0 } })
    }
}
