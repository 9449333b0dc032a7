import Foundation
import Synchronization

/// Progress of long CLI work on standard error: `hashing passwords 1200/10000 (12%)`.
///
/// On a terminal the line is rewritten in place (at most every 1 %); elsewhere (CI logs,
/// pipes) it is written once per 10 %, so a log stays short. Work under `minimumTotal`
/// items finishes too fast to need it and prints nothing.
final class ProgressLine: Sendable {
    static let minimumTotal = 100

    private let label: String
    private let total: Int
    private let output: any CLIOutput
    private let terminal: Bool
    /// Items done and the last step written (percent on a terminal, tens of percent elsewhere).
    private let state = Mutex((done: 0, step: 0))

    init(_ label: String, total: Int, context: CLIContext) {
        self.label = label
        self.total = total
        output = context.output
        terminal = context.output.errorIsTerminal
    }

    private var enabled: Bool { total >= Self.minimumTotal }

    /// Counts `count` more items done and writes the line when it reached the next step.
    func advance(by count: Int = 1) {
        guard enabled else { return }
        let line: String? = state.withLock { state in
            state.done = min(total, state.done + count)
            let percent = state.done * 100 / total
            let step = terminal ? percent : percent / 10 * 10
            guard step > state.step || state.done == total else { return nil }
            state.step = step
            return "\(label) \(state.done)/\(total) (\(percent)%)"
        }
        guard let line else { return }
        output.writeError(terminal ? "\r\(line)\u{1B}[K" : line + "\n")
    }

    /// Ends the line on a terminal, so what follows starts on a fresh one.
    func finish() {
        if enabled && terminal { output.writeError("\n") }
    }
}
