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
    /// The output is read on a detached task so the gateway's event loops keep serving the script.
    static func run(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", RepositoryFile.url("Tests/Interop/" + name).path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = await Task.detached {
            String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }.value
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
