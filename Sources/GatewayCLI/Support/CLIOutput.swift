import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where gatewayctl writes: the process's stdout/stderr, or collectors in tests.
public protocol CLIOutput: Sendable {
    /// Writes `text` (a newline is not added) to standard output.
    func writeOutput(_ text: String)
    /// Writes `text` (a newline is not added) to standard error.
    func writeError(_ text: String)
    /// Whether standard error is a terminal (a progress line is then rewritten in place).
    var errorIsTerminal: Bool { get }
}

extension CLIOutput {
    public var errorIsTerminal: Bool { false }
}

/// The real process streams.
public struct StandardStreams: CLIOutput {
    public init() {}

    public func writeOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    public func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    public var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// Collects everything written, for tests and embedding.
public final class CapturedOutput: CLIOutput {
    private let buffers = Mutex((output: "", error: ""))

    public init() {}

    public func writeOutput(_ text: String) {
        buffers.withLock { $0.output += text }
    }

    public func writeError(_ text: String) {
        buffers.withLock { $0.error += text }
    }

    /// Everything written to standard output so far.
    public var output: String { buffers.withLock { $0.output } }
    /// Everything written to standard error so far.
    public var error: String { buffers.withLock { $0.error } }
}
