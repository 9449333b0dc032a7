import Logging
import Synchronization
import GatewayCore
import Testing

@Suite("Periodic clean-ups")
struct PeriodicTests {
    struct Boom: Error {}

    @Test("a failed round is logged and the next one still comes; cancelling ends the loop")
    func aFailureDoesNotStopTheLoop() async throws {
        let rounds = Atomic<Int>(0)
        let task = Task {
            await Periodic.run(every: .milliseconds(10), name: "test clean-up", logger: Logger(label: "test")) {
                if rounds.add(1, ordering: .relaxed).newValue == 1 { throw Boom() }
            }
        }
        let started = ContinuousClock.now
        while rounds.load(ordering: .relaxed) < 3, ContinuousClock.now - started < .seconds(5) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(rounds.load(ordering: .relaxed) >= 3)
        task.cancel()
        await task.value
        let after = rounds.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(50))
        #expect(rounds.load(ordering: .relaxed) == after)
    }
}
