import Foundation
import ProcessSpawn

/// A Python test script (Tests/Interop) run beside a live gateway.
enum PythonScript {
    /// True when `python3 -c "import <modules>"` succeeds.
    static func canImport(_ modules: String) -> Bool {
        guard let process = try? SpawnedProcess.start("/usr/bin/env", ["python3", "-c", "import \(modules)"]) else {
            return false
        }
        return process.waitUntilExit() == 0
    }

    /// Runs `Tests/Interop/<name>` with `arguments`; returns its exit status and combined output.
    /// The output is read and the exit awaited off the cooperative pool (2 threads on 2 cores):
    /// blocking one for the script's whole run would stall every gateway of the test process.
    static func run(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let result = try await SpawnedProcess.output(
            "/usr/bin/env", ["python3", RepositoryFile.url("Tests/Interop/" + name).path] + arguments,
            standardError: .descriptor(1))
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }

    /// The first line a child process writes to `pipe` (its "listening PORT"), read on a thread
    /// of its own so no cooperative thread blocks on it.
    static func firstLine(of pipe: Pipe) async -> String {
        await withCheckedContinuation { continuation in
            let reader = Thread {
                var data = Data()
                while let byte = try? pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
                    if byte == Data("\n".utf8) { break }
                    data.append(byte)
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
            reader.start()
        }
    }

    /// Starts `Tests/Interop/<name>` as a server that prints `listening PORT` once ready, runs
    /// `body` with that port, and kills it (SIGKILL: a graceful shutdown would wait for
    /// clients; not waited for, so no cooperative thread blocks). nil port: it did not start,
    /// and `body` gets its first line to report.
    static func serving<T>(
        _ name: String, _ arguments: [String], _ body: (Result<Int, ServerDidNotStart>) async throws -> T
    ) async throws -> T {
        let output = Pipe()
        let process = try SpawnedProcess.start(
            "/usr/bin/env", ["python3", RepositoryFile.url("Tests/Interop/" + name).path] + arguments,
            standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try output.fileHandleForWriting.close()
        defer { process.kill() }
        let line = await firstLine(of: output)
        guard line.hasPrefix("listening "), let port = Int(line.dropFirst("listening ".count)) else {
            return try await body(.failure(ServerDidNotStart(name: name, line: line)))
        }
        return try await body(.success(port))
    }

    /// A server script that printed something else than `listening PORT`.
    struct ServerDidNotStart: Error, CustomStringConvertible {
        let name: String
        let line: String
        var description: String { "\(name) did not start: \(line)" }
    }
}
