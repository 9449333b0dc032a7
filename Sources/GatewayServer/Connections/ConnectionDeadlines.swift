import NIOCore

/// When one HTTP/1.1 connection must have made progress, as a pure state machine (the
/// channel handlers feed it events and close the connection when it says so).
///
/// - awaiting head: from accept, or from the first byte after an idle period, the request
///   head must be complete within the header timeout (slow-loris headers);
/// - reading body: from the head, the body must be complete within the body timeout;
/// - responding: the response must be written within the idle timeout;
/// - idle: with no request in flight, the connection may wait the idle timeout.
struct ConnectionDeadlines {
    enum Phase: Hashable, Sendable {
        case awaitingHead
        case readingBody
        case responding
        case idle
    }

    let limits: ConnectionLimits
    private(set) var phase: Phase = .awaitingHead
    private(set) var deadline: NIODeadline
    /// Requests whose response has not been written completely.
    private var inFlight = 0

    init(limits: ConnectionLimits, now: NIODeadline) {
        self.limits = limits
        deadline = now + Self.amount(limits.headerTimeout)
    }

    /// Bytes arrived on the socket.
    mutating func bytesArrived(now: NIODeadline) {
        guard phase == .idle else { return }
        phase = .awaitingHead
        deadline = now + Self.amount(limits.headerTimeout)
    }

    /// A request head was parsed.
    mutating func headReceived(now: NIODeadline) {
        inFlight += 1
        phase = .readingBody
        deadline = now + Self.amount(limits.bodyTimeout)
    }

    /// A request's body ended.
    mutating func endReceived(now: NIODeadline) {
        guard phase == .readingBody else { return }
        phase = .responding
        deadline = now + Self.amount(limits.idleTimeout)
    }

    /// A response was written completely.
    mutating func responseEnded(now: NIODeadline) {
        inFlight = max(0, inFlight - 1)
        guard inFlight == 0, phase == .responding else { return }
        phase = .idle
        deadline = now + Self.amount(limits.idleTimeout)
    }

    /// Whether the connection is overdue and must be closed.
    func isOverdue(now: NIODeadline) -> Bool {
        now >= deadline
    }

    static func amount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.nanoseconds)
    }
}
