import NIOCore
import Synchronization

/// Which client connections the server keeps. At accept: at most `maxPerAddress` from one
/// client address (trusted proxies' own connections exempt). Near the cap, after Envoy's
/// overload manager: past the high-water mark the server is *overloaded* — new header and
/// idle deadlines shrink (see ``ConnectionDeadlines``) and the longest-idle keep-alive
/// connections and oldest unfinished heads are closed until the count is back at the
/// low-water mark; it stays overloaded until the count falls under that mark. A request in
/// flight is never shed. While overloaded, an address that already holds its fair share
/// (the low-water mark over the addresses holding connections) is refused at accept, so a
/// flood from a few addresses is turned away cheaply while a newcomer still gets in. So one
/// address cannot take every slot, and a flood of half-open connections costs the flooder
/// its oldest sockets and new attempts, not other clients their turn.
final class ConnectionAdmission: Sendable {
    struct Policy: Sendable, Equatable {
        /// Connections held at once (the effective cap).
        var maxConnections: Int
        /// Connections held at once per client address (0 = no cap).
        var maxPerAddress: Int

        /// 80 % of the cap: overloaded from here.
        var highWater: Int { max(1, maxConnections * 8 / 10) }
        /// 70 % of the cap: shedding stops here, and overload ends under it.
        var lowWater: Int { max(1, maxConnections * 7 / 10) }

        /// While overloaded, the most one address may hold when `addresses` hold any: an
        /// even split of the low-water mark (at least 1, so a newcomer is always admitted).
        func fairShare(among addresses: Int) -> Int { max(1, lowWater / max(1, addresses)) }
    }

    /// Why a new connection was closed at once.
    enum Refusal: String, Sendable, CaseIterable {
        case perAddress = "per_address"
        /// Overloaded, and the address already holds its fair share.
        case fairShare = "fair_share"
        /// At the cap with nothing to shed (every connection has a request in flight).
        case full
    }

    /// Why a held connection was closed to make room.
    enum ShedReason: String, Sendable, CaseIterable {
        case idle
        case slowHead = "slow_head"
    }

    /// Told of refusals, sheds and overload changes (metrics).
    struct Events: Sendable {
        var refused: @Sendable (Refusal) -> Void = { _ in }
        var shed: @Sendable (ShedReason) -> Void = { _ in }
    }

    private struct Entry {
        let connection: ClientConnection
        /// The address it counts against (nil: a trusted proxy's own connection).
        var countedAs: IPAddress?
    }

    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        var perAddress = AddressTally()
        /// Chosen to be shed and not closed yet.
        var shedding = 0
        var live: Int { open.count - shedding }
    }

    let policy: Policy
    private let events: Events
    private let state = Mutex(State())
    private let overloaded = Atomic<Bool>(false)

    init(policy: Policy, events: Events = .init()) {
        self.policy = policy
        self.events = events
    }

    /// Whether the server is overloaded (read by every connection's deadlines, lock-free).
    var isOverloaded: Bool { overloaded.load(ordering: .relaxed) }

    /// Connections held now.
    var openCount: Int { state.withLock { $0.open.count } }

    /// Admits a new connection, shedding others first when it crosses the high-water mark;
    /// nil when admitted, else why it must be closed at once.
    func admit(_ connection: ClientConnection) -> Refusal? {
        let countedAs = connection.isTrustedPeer ? nil : connection.address
        let (refusal, victims) = state.withLock { state -> (Refusal?, [(ClientConnection, ShedReason)]) in
            if let countedAs, policy.maxPerAddress > 0, state.perAddress[countedAs] >= policy.maxPerAddress {
                return (.perAddress, [])
            }
            if let countedAs, state.live + 1 >= policy.highWater,
               state.perAddress[countedAs] >= policy.fairShare(among: state.perAddress.addresses) {
                overloaded.store(true, ordering: .relaxed)
                return (.fairShare, [])
            }
            let victims = shed(&state, toMakeRoomFor: 1)
            if state.live >= policy.maxConnections { return (.full, victims) }
            state.open[ObjectIdentifier(connection)] = Entry(connection: connection, countedAs: countedAs)
            if let countedAs { state.perAddress.add(countedAs) }
            return (nil, victims)
        }
        close(victims)
        if let refusal { events.refused(refusal) }
        return refusal
    }

    /// Counts an admitted connection against the client a PROXY protocol header named
    /// instead of its peer; nil when it may stay, else why it must be closed.
    func readmit(_ connection: ClientConnection, as address: IPAddress) -> Refusal? {
        let refusal = state.withLock { state -> Refusal? in
            let key = ObjectIdentifier(connection)
            guard var entry = state.open[key] else { return nil }
            if policy.maxPerAddress > 0, entry.countedAs != address, state.perAddress[address] >= policy.maxPerAddress {
                return .perAddress
            }
            if let counted = entry.countedAs { state.perAddress.remove(counted) }
            entry.countedAs = address
            state.perAddress.add(address)
            state.open[key] = entry
            return nil
        }
        if let refusal { events.refused(refusal) }
        return refusal
    }

    /// Forgets a closed connection.
    func release(_ connection: ClientConnection) {
        state.withLock { state in
            guard let entry = state.open.removeValue(forKey: ObjectIdentifier(connection)) else { return }
            if let counted = entry.countedAs { state.perAddress.remove(counted) }
            if connection.isShed.load(ordering: .relaxed) { state.shedding -= 1 }
            if state.live < policy.lowWater { overloaded.store(false, ordering: .relaxed) }
        }
    }

    /// With `incoming` more, at the high-water mark: marks the server overloaded and picks
    /// the connections to close, oldest idle or unfinished head first, down to the low-water
    /// mark. Under the lock.
    private func shed(_ state: inout State, toMakeRoomFor incoming: Int) -> [(ClientConnection, ShedReason)] {
        guard state.live + incoming >= policy.highWater else { return [] }
        overloaded.store(true, ordering: .relaxed)
        let excess = state.live + incoming - policy.lowWater
        var candidates: [(connection: ClientConnection, since: UInt64, reason: ShedReason)] = []
        candidates.reserveCapacity(state.open.count)
        for entry in state.open.values where !entry.connection.isShed.load(ordering: .relaxed) {
            let (phase, since) = entry.connection.phase
            switch phase {
            case .idle: candidates.append((entry.connection, since, .idle))
            case .awaitingHead: candidates.append((entry.connection, since, .slowHead))
            case .readingBody, .responding: continue
            }
        }
        candidates.sort { $0.since < $1.since }
        let victims = candidates.prefix(excess)
        for victim in victims { victim.connection.isShed.store(true, ordering: .relaxed) }
        state.shedding += victims.count
        return victims.map { ($0.connection, $0.reason) }
    }

    private func close(_ victims: [(ClientConnection, ShedReason)]) {
        for (connection, reason) in victims {
            events.shed(reason)
            connection.channel.close(promise: nil)
        }
    }
}
