import Foundation
import ProcessSpawn

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
        let result = try await SpawnedProcess.output(executable.path, arguments, environment: environment)
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }

    /// Starts `executable` and leaves it running; the caller kills it. Standard error goes to
    /// `errorLog` when given.
    static func start(
        _ executable: URL, _ arguments: [String], environment: [String: String], errorLog: URL? = nil
    ) throws -> SpawnedProcess {
        guard let errorLog else { return try SpawnedProcess.start(executable.path, arguments, environment: environment) }
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        let log = try FileHandle(forWritingTo: errorLog)
        defer { try? log.close() }
        return try SpawnedProcess.start(
            executable.path, arguments, environment: environment, standardError: .descriptor(log.fileDescriptor))
    }
}
