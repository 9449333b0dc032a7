import Foundation

/// A program of this repository's build (`.build/debug/NAME`) run as a real child process.
enum ChildProcess {
    /// The built executable `name` (gateway, gatewayctl), next to the test bundle.
    static func binary(_ name: String) -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return RepositoryFile.url(".build/debug/\(name)")
    }

    /// Runs `executable` to its end; returns its exit status and standard output.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]
    ) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let status = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (status, String(decoding: data, as: UTF8.self))
    }

    /// Starts `executable` and leaves it running; the caller kills it. Standard error goes to
    /// `errorLog` when given.
    static func start(
        _ executable: URL, _ arguments: [String], environment: [String: String], errorLog: URL? = nil
    ) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        if let errorLog {
            _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorLog)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }
}
