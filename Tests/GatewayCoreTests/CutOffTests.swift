import Foundation
@testable import GatewayCore
import Synchronization
import Testing

/// The one race helper (issue 15, item 5): on time whatever the work does, and the cut
/// work cancelled or left to finish as the caller chose.
@Suite("CutOff")
struct CutOffTests {
    /// Set by work that ignored cancellation and ran to its end, or saw it.
    final class Flags: Sendable {
        let finished = Atomic<Bool>(false)
        let sawCancellation = Atomic<Bool>(false)
        var isFinished: Bool { finished.load(ordering: .relaxed) }
        var wasCancelled: Bool { sawCancellation.load(ordering: .relaxed) }
    }

    /// Work that waits for `release` without reacting to cancellation (opening `started` first),
    /// then records whether it was cancelled.
    static func stubborn(
        until release: Gate, started: Gate = Gate(), _ flags: Flags
    ) -> @Sendable () async throws -> Int {
        {
            started.open()
            await release.wait()
            flags.sawCancellation.store(Task.isCancelled, ordering: .relaxed)
            flags.finished.store(true, ordering: .relaxed)
            return 1
        }
    }

    @Test("an answer before the deadline is returned, errors included; an instant answer is not lost")
    func finishes() async throws {
        #expect(await CutOff.value(within: .seconds(5)) { 7 } == 7)
        guard
            case .finished(.failure(let error)) = await CutOff.outcome(
                until: .now + .seconds(5), leftover: .cancel,
                { () async throws -> Int in throw UpstreamError.overloaded })
        else {
            Issue.record("the error was not returned")
            return
        }
        #expect(error as? UpstreamError == .overloaded)
        await #expect(throws: UpstreamError.malformed("x")) {
            try await CutOff.run(until: .now + .seconds(5), orThrow: UpstreamError.timeout) { () async throws -> Int in
                throw UpstreamError.malformed("x")
            }
        }
    }

    @Test("work that ignores cancellation is cut on time and, with .cancel, is cancelled")
    func cutAndCancelled() async throws {
        let flags = Flags()
        let release = Gate()
        let start = ContinuousClock.now
        await #expect(throws: UpstreamError.timeout) {
            try await CutOff.run(
                until: .now + .milliseconds(50), orThrow: UpstreamError.timeout, Self.stubborn(until: release, flags))
        }
        #expect(ContinuousClock.now - start < .milliseconds(500))
        #expect(!flags.isFinished)
        release.open()
        #expect(await eventually(within: .seconds(2)) { flags.isFinished })
        #expect(flags.wasCancelled)
    }

    @Test("with .finishInBackground the cut work runs to its end uncancelled")
    func cutAndFinishedInBackground() async throws {
        let flags = Flags()
        let release = Gate()
        #expect(
            await CutOff.value(within: .milliseconds(50)) { try await Self.stubborn(until: release, flags)() } == nil)
        #expect(!flags.isFinished)
        release.open()
        #expect(await eventually(within: .seconds(2)) { flags.isFinished })
        #expect(!flags.wasCancelled)
    }

    @Test("a cancelled caller gets CancellationError at once, and the work is cancelled")
    func callerCancelled() async throws {
        let flags = Flags()
        let release = Gate()
        let started = Gate()
        let caller = Task {
            try await CutOff.run(
                until: .now + .seconds(30), orThrow: UpstreamError.timeout,
                Self.stubborn(until: release, started: started, flags))
        }
        await started.wait()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        release.open()
        #expect(await eventually(within: .seconds(2)) { flags.isFinished })
        #expect(flags.wasCancelled)
    }

    @Test("a deadline already passed throws without starting the work")
    func pastDeadline() async throws {
        let flags = Flags()
        let started = Gate()
        let open = Gate()
        open.open()
        await #expect(throws: UpstreamError.timeout) {
            try await CutOff.run(
                until: .now - .seconds(1), orThrow: UpstreamError.timeout,
                Self.stubborn(until: open, started: started, flags))
        }
        #expect(await !eventually(within: .milliseconds(50)) { started.isOpen || flags.isFinished })
    }
}
