import Dispatch
import Glibc
import Synchronization

/// A child process started with `posix_spawn`, for the CLI and the tests.
///
/// Why not Foundation's `Process`: on Linux (swift-corelibs-foundation as shipped with Swift
/// 6.3.1) every `Process.run()` lists `/proc/self/fd` to close inherited descriptors and copies
/// each `dirent`'s whole 256-byte `d_name`, reading past glibc's buffer. In a process with many
/// sockets open (a test run) that crashes now and then with SIGSEGV in `memmove`
/// (swiftlang/swift-corelibs-foundation#5472, fixed after 6.3.1). This type asks glibc to close
/// the inherited descriptors itself (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34) and
/// reaps the child on a thread of its own, so no thread of Swift's cooperative pool blocks.
public final class SpawnedProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// The parent's own stream.
        case inherit
        /// This descriptor of the parent (a pipe's end, an open file); the parent keeps it open.
        /// Standard error as `.descriptor(1)` joins standard output.
        case descriptor(Int32)
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    private let status = Mutex<Int32?>(nil)
    private let exited = DispatchGroup()
    private let waiters = Mutex<[CheckedContinuation<Int32, Never>]>([])

    private init(processIdentifier: pid_t) {
        self.processIdentifier = processIdentifier
    }

    /// Starts `executable` (an absolute path) with `arguments`. `environment` nil passes the
    /// parent's. The child gets descriptors 0, 1 and 2 only, in a process group of its own, with
    /// no signal blocked and SIGTERM, SIGINT, SIGHUP and SIGPIPE at their defaults.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .null
    ) throws(SpawnError) -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .inherit: break
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
        }
        guard let closeFrom = closeFromAction, closeFrom(&actions, 3) == 0 else {
            throw SpawnError(executable: executable, reason: "this C library cannot close inherited descriptors")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals the parent ignores (a ServiceLifecycle process ignores SIGTERM to catch it
        // itself) are the child's defaults again.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // ... and none is blocked (the spawning thread may block some, and a mask survives exec).
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = CStrings([executable] + arguments)
        let envp = environment.map { CStrings($0.map { "\($0.key)=\($0.value)" }) }
        var pid = pid_t()
        let result = argv.withPointers { argvPointers in
            if let envp {
                return envp.withPointers { posix_spawn(&pid, executable, &actions, &attributes, argvPointers, $0) }
            }
            return posix_spawn(&pid, executable, &actions, &attributes, argvPointers, environ)
        }
        guard result == 0 else {
            throw SpawnError(executable: executable, reason: String(cString: strerror(result)))
        }
        let process = SpawnedProcess(processIdentifier: pid)
        process.reapOnOwnThread()
        return process
    }

    /// Runs `executable` to its end and returns its exit status and standard output.
    public static func output(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardError: Stream = .null
    ) async throws(SpawnError) -> (status: Int32, output: [UInt8]) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw SpawnError(executable: executable, reason: String(cString: strerror(errno)))
        }
        let process: SpawnedProcess
        do {
            process = try start(
                executable, arguments, environment: environment, standardOutput: .descriptor(ends[1]),
                standardError: standardError)
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[1])
        let output = await readToEnd(ends[0])
        return (await process.exitStatus(), output)
    }

    /// True until the child has exited and been reaped.
    public var isRunning: Bool { status.withLock { $0 == nil } }

    /// The exit code, or the signal's number when a signal ended it; nil while it runs.
    public var terminationStatus: Int32? { status.withLock { $0 } }

    /// Sends `signal` while the child runs.
    public func signal(_ signal: Int32) {
        if isRunning { Glibc.kill(processIdentifier, signal) }
    }

    /// SIGTERM: the polite stop an orchestrator sends first.
    public func terminate() { signal(SIGTERM) }

    /// SIGKILL.
    public func kill() { signal(SIGKILL) }

    /// Waits for the exit without blocking a thread.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done: Int32? = status.withLock { status in
                if let status { return status }
                waiters.withLock { $0.append(continuation) }
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Blocks the calling thread until the exit; never call it on a thread of the cooperative pool.
    public func waitUntilExit() -> Int32 {
        exited.wait()
        return terminationStatus ?? -1
    }

    private func reapOnOwnThread() {
        exited.enter()
        let pid = processIdentifier
        Self.startThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            let code = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            let waiting = status.withLock { status in
                status = code
                return waiters.withLock { waiters in
                    defer { waiters = [] }
                    return waiters
                }
            }
            for waiter in waiting { waiter.resume(returning: code) }
            exited.leave()
        }
    }
}

/// A child process could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    /// The program.
    public let executable: String
    /// What the system said.
    public let reason: String
    public var description: String { "could not start \(executable): \(reason)" }
}
