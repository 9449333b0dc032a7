import NIOCore
import Synchronization

/// One accepted client connection as the edge sees it: its peer, the client address a
/// PROXY protocol header named, and the phase its deadlines are in (what overload shedding
/// chooses by). Made when the connection is set up; bound as a task-local value while its
/// requests are served, so each request's context finds it without a lookup.
final class ClientConnection: Sendable {
    let channel: any Channel
    /// The TCP peer (nil for a socket without an IP address).
    let peer: IPAddress?
    /// Whether the peer is a trusted proxy.
    let isTrustedPeer: Bool
    /// Set once by ``ProxyProtocolHandler`` before any HTTP byte is passed on.
    private let proxied = Mutex<IPAddress?>(nil)
    /// ``ConnectionDeadlines/Phase``'s raw value, and since when (uptime nanoseconds).
    private let phaseCode = Atomic<UInt8>(ConnectionDeadlines.Phase.awaitingHead.rawValue)
    private let phaseStart = Atomic<UInt64>(0)
    /// Chosen to be shed (closing); not counted as a candidate again.
    let isShed = Atomic<Bool>(false)

    init(channel: any Channel, peer: IPAddress?, isTrustedPeer: Bool) {
        self.channel = channel
        self.peer = peer
        self.isTrustedPeer = isTrustedPeer
        phaseStart.store(NIODeadline.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// The client's address at the connection level: what a PROXY header named, else the peer.
    var address: IPAddress? { proxied.withLock { $0 } ?? peer }

    func setProxied(_ address: IPAddress) {
        proxied.withLock { $0 = address }
    }

    /// The deadline phase, published by ``ConnectionDeadlineHandler`` on every change.
    func enter(_ phase: ConnectionDeadlines.Phase, at now: NIODeadline) {
        phaseCode.store(phase.rawValue, ordering: .relaxed)
        phaseStart.store(now.uptimeNanoseconds, ordering: .relaxed)
    }

    /// The phase and since when (read by shedding, from any thread; a torn pair only
    /// misorders one candidate).
    var phase: (phase: ConnectionDeadlines.Phase, since: UInt64) {
        (
            ConnectionDeadlines.Phase(rawValue: phaseCode.load(ordering: .relaxed)) ?? .awaitingHead,
            phaseStart.load(ordering: .relaxed)
        )
    }

    /// The connection whose requests the current task serves.
    @TaskLocal static var current: ClientConnection?
}
