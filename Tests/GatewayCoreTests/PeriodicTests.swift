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
        #expect(await eventually { rounds.load(ordering: .relaxed) >= 3 })
        task.cancel()
        await task.value
        // Ended: no round runs after the task has returned (five periods later).
        let after = rounds.load(ordering: .relaxed)
        #expect(await !eventually(within: .milliseconds(50)) { rounds.load(ordering: .relaxed) != after })
    }
}
