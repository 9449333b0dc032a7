import Synchronization

/// Requests in flight per client address, each address held to `limit`. An address is
/// forgotten when its last request ends, so the table holds at most one entry per request
/// in flight.
final class InFlightPerAddress: Sendable {
    let limit: Int
    private let counts = Mutex<[IPAddress: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a place for `address`; false when it already has `limit` requests in flight.
    func enter(_ address: IPAddress) -> Bool {
        counts.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    func leave(_ address: IPAddress) {
        counts.withLock { counts in
            guard let count = counts[address] else { return }
            counts[address] = count > 1 ? count - 1 : nil
        }
    }

    /// Addresses with a request in flight (tests).
    var addressCount: Int { counts.withLock { $0.count } }
}
