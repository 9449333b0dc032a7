import GatewayCore

/// Runs the readiness checks (SQLite always; Redis when configured) concurrently, each
/// bounded by a timeout so a hung dependency reports unready instead of hanging the probe.
public struct ReadinessProbe: Sendable {
    /// One named check: throws when the dependency is not usable.
    public struct Check: Sendable {
        public let name: String
        public let run: @Sendable () async throws -> Void

        public init(name: String, run: @escaping @Sendable () async throws -> Void) {
            self.name = name
            self.run = run
        }
    }

    public struct Result: Sendable, Equatable {
        public let name: String
        public let ok: Bool
        public let detail: String?
        public let latencyMilliseconds: Double
    }

    let checks: [Check]
    let timeout: Duration

    public init(checks: [Check], timeout: Duration = .seconds(1)) {
        self.checks = checks
        self.timeout = timeout
    }

    public func check() async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { (index, await run(check)) }
            }
            var results = [(Int, Result)]()
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    private func run(_ check: Check) async -> Result {
        let start = ContinuousClock.now
        let outcome: String?
        switch await CutOff.outcome(until: start + timeout, leftover: .cancel, check.run) {
        case .finished(.success): outcome = nil
        case .finished(.failure(let error)): outcome = "failed: \(type(of: error))"
        case .cut: outcome = "timed out after \(timeout)"
        case .cancelled: outcome = "no result"
        }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return Result(name: check.name, ok: outcome == nil, detail: outcome, latencyMilliseconds: milliseconds)
    }
}
