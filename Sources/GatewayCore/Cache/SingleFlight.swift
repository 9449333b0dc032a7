import Synchronization

/// Concurrent callers asking for the same key share ONE execution of the work.
///
/// The work runs in an unstructured task owned by the flight (so one caller giving up
/// does not cancel the others); it bounds itself with its own deadline.
public final class SingleFlight<Value: Sendable>: Sendable {
    private let flights = Mutex<[String: Task<Value, any Error>]>([:])

    public init() {}

    /// Keys with work in progress.
    public var inFlight: Int { flights.withLock { $0.count } }

    /// Joins the flight for `key`, starting it with `work` when none is running.
    public func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task = flights.withLock { flights -> Task<Value, any Error> in
            if let running = flights[key] { return running }
            // The task removes itself when done; it cannot run that removal before this
            // closure returns, because the removal needs the same lock.
            let task = Task<Value, any Error> {
                let result = await Result(catching: work)
                self.flights.withLock { _ = $0.removeValue(forKey: key) }
                return try result.get()
            }
            flights[key] = task
            return task
        }
        return try await task.value
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
