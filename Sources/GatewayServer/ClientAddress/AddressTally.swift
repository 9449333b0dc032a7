/// How many of something (connections, requests in flight) each client address holds. An
/// address is forgotten when its count falls to zero, so the table never holds more entries
/// than there are things counted. Not synchronised: its owner keeps it under a lock.
struct AddressTally {
    private var counts: [IPAddress: Int] = [:]

    /// What `address` holds now.
    subscript(address: IPAddress) -> Int { counts[address, default: 0] }

    /// Addresses holding at least one.
    var addresses: Int { counts.count }

    mutating func add(_ address: IPAddress) {
        counts[address, default: 0] += 1
    }

    mutating func remove(_ address: IPAddress) {
        guard let count = counts[address] else { return }
        counts[address] = count > 1 ? count - 1 : nil
    }
}
