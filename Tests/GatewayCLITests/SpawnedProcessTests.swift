import Foundation
import ProcessSpawn
import Testing

/// Child processes start through `posix_spawn` with only descriptors 0-2, and Foundation's
/// `Process` (which over-reads `/proc/self/fd` on Linux and crashed test runs) is not used.
@Suite("Spawned child processes")
struct SpawnedProcessTests {
    @Test("a child inherits none of the parent's other descriptors, even those without CLOEXEC")
    func onlyStandardDescriptors() async throws {
        let open = Glibc.open("/etc/hostname", O_RDONLY)
        #expect(open > 2)
        defer { close(open) }
        #expect(fcntl(open, F_GETFD) & FD_CLOEXEC == 0)
        let result = try await SpawnedProcess.output("/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(result.status == 0)
        let descriptors = String(decoding: result.output, as: UTF8.self).split(separator: "\n")
        #expect(descriptors == ["0", "1", "2"])
    }

    @Test("exit codes, signals, joined standard error, and a missing program")
    func statuses() async throws {
        let failed = try await SpawnedProcess.output("/bin/sh", ["-c", "echo out; echo err >&2; exit 7"],
            standardError: .descriptor(1))
        #expect(failed.status == 7)
        #expect(String(decoding: failed.output, as: UTF8.self) == "out\nerr\n")

        let sleeper = try SpawnedProcess.start("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        #expect(sleeper.terminationStatus == nil)
        sleeper.terminate()
        #expect(await sleeper.exitStatus() == SIGTERM)
        #expect(!sleeper.isRunning)

        #expect(throws: SpawnError.self) { try SpawnedProcess.start("/nonexistent/program", []) }
    }

    @Test("the environment given is the child's whole environment")
    func environment() async throws {
        let result = try await SpawnedProcess.output("/usr/bin/env", [], environment: ["ONLY": "this"])
        #expect(String(decoding: result.output, as: UTF8.self) == "ONLY=this\n")
    }

    @Test("no source or test starts Foundation's Process")
    func noFoundationProcess() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let foundationProcess = try Regex(#"\bProcess(\(\)|\.run\()"#)
        var offenders: [String] = []
        for folder in ["Sources", "Tests", "Benchmarks"] {
            let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let path = files?.nextObject() as? String {
                guard path.hasSuffix(".swift"), !path.contains("SpawnedProcess") else { continue }
                let text = try String(contentsOf: root.appendingPathComponent("\(folder)/\(path)"), encoding: .utf8)
                if text.contains(foundationProcess) { offenders.append(path) }
            }
        }
        #expect(offenders.isEmpty)
    }
}
