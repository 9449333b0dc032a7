/// Deletes in rounds of at most `batch` until a round deletes less than a full batch (or the
/// task is cancelled); returns how many went. Shared by the retention loops.
enum BatchedPurge {
    static func run(batch: Int, _ round: (Int) async throws -> Int) async throws -> Int {
        var total = 0
        while !Task.isCancelled {
            let removed = try await round(batch)
            total += removed
            if removed < batch { break }
        }
        return total
    }
}
