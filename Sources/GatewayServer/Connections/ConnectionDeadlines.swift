import NIOCore

/// When one HTTP/1.1 connection must have made progress, as a pure state machine (the
/// channel handlers feed it events and close the connection when it says so).
///
/// - awaiting head: from accept, or from the first byte after an idle period, the request
///   head must be complete within the header timeout (slow-loris headers);
/// - reading body: from the head, the body must be complete within the body timeout;
/// - responding: the response must be written within the idle timeout;
/// - idle: with no request in flight, the connection may wait the idle timeout.
///
/// While the server is overloaded (see ``ConnectionAdmission``), a head or idle period that
/// begins gets at most ``ConnectionLimits/overloadTimeout``.
struct ConnectionDeadlines {
    /// Raw values: how ``ClientConnection`` publishes the phase in an atomic.
    enum Phase: UInt8, Hashable, Sendable {
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

    init(limits: ConnectionLimits, now: NIODeadline, overloaded: Bool = false) {
        self.limits = limits
        deadline = now + Self.amount(limits.timeout(of: .awaitingHead, overloaded: overloaded))
    }

    /// Bytes arrived on the socket.
    mutating func bytesArrived(now: NIODeadline, overloaded: Bool = false) {
        guard phase == .idle else { return }
        enter(.awaitingHead, now: now, overloaded: overloaded)
    }

    /// A request head was parsed.
    mutating func headReceived(now: NIODeadline) {
        inFlight += 1
        enter(.readingBody, now: now, overloaded: false)
    }

    /// A request's body ended.
    mutating func endReceived(now: NIODeadline) {
        guard phase == .readingBody else { return }
        enter(.responding, now: now, overloaded: false)
    }

    /// A response was written completely.
    mutating func responseEnded(now: NIODeadline, overloaded: Bool = false) {
        inFlight = max(0, inFlight - 1)
        guard inFlight == 0, phase == .responding else { return }
        enter(.idle, now: now, overloaded: overloaded)
    }

    private mutating func enter(_ next: Phase, now: NIODeadline, overloaded: Bool) {
        phase = next
        deadline = now + Self.amount(limits.timeout(of: next, overloaded: overloaded))
    }

    /// Whether the connection is overdue and must be closed.
    func isOverdue(now: NIODeadline) -> Bool {
        now >= deadline
    }

    static func amount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.nanoseconds)
    }
}
