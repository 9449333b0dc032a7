import Synchronization

/// Requests in flight per client address, each address held to `limit` (an
/// ``AddressTally``: at most one entry per request in flight).
final class InFlightPerAddress: Sendable {
    let limit: Int
    private let counts = Mutex(AddressTally())

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place for `address`; false when it already has `limit` requests in flight.
    func enter(_ address: IPAddress) -> Bool {
        counts.withLock { counts in
            guard counts[address] < limit else { return false }
            counts.add(address)
            return true
        }
    }

    func leave(_ address: IPAddress) {
        counts.withLock { $0.remove(address) }
    }
}
