import Foundation

/// A Python test script (Tests/Interop) run beside a live gateway.
enum PythonScript {
    /// True when `python3 -c "import <modules>"` succeeds.
    static func canImport(_ modules: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import \(modules)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Runs `Tests/Interop/<name>` with `arguments`; returns its exit status and combined output.
    /// The output is read and the exit awaited on a thread of its own: blocking a thread of the
    /// cooperative pool (2 on 2 cores) for the script's whole run would stall every gateway of
    /// the test process, the one the script talks to included, and two scripts at once would
    /// stall them all until the scripts time out.
    static func run(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", RepositoryFile.url("Tests/Interop/" + name).path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return await withCheckedContinuation { continuation in
            let waiter = Thread {
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, output))
            }
            waiter.start()
        }
    }
}
