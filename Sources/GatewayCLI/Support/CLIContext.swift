import Foundation
import GatewayCore
import Synchronization

/// What a running command may touch besides its arguments: environment, input, output.
///
/// ``Gatewayctl/run(arguments:environment:standardInput:output:)`` binds it as a task
/// local for the duration of one command; there is no global mutable state.
struct CLIContext: Sendable {
    var environment: [String: String]
    var output: any CLIOutput
    var standardInput: @Sendable () throws -> Data
    /// Stores the command opened; ``Gatewayctl`` closes them when the command ends.
    let openedStores = OpenedStores()

    @TaskLocal static var current: CLIContext?

    /// The bound context; commands only run inside ``Gatewayctl``.
    static func require() throws -> CLIContext {
        guard let current else { throw CLIError.failure("gatewayctl commands must run through Gatewayctl.run") }
        return current
    }

    /// Writes one line to standard output.
    func print(_ line: String) {
        output.writeOutput(line + "\n")
    }

    /// Writes one line to standard error.
    func printError(_ line: String) {
        output.writeError(line + "\n")
    }

    /// Reports a finished change: `document` as JSON with `--json`, else the one `line`.
    func report(_ line: String, document: some Encodable, json: Bool) throws {
        if json { try printJSON(document) } else { print(line) }
    }

    /// Writes `value` as pretty JSON (sorted keys) to standard output.
    func printJSON(_ value: some Encodable) throws {
        print(try JSONCoding.encodeString(value))
    }
}

/// The database connections a command holds, released when it ends.
final class OpenedStores: Sendable {
    private let stores = Mutex<[DurableStores]>([])

    func add(_ opened: DurableStores) {
        stores.withLock { $0.append(opened) }
    }

    /// Closes everything added, once.
    func closeAll() async {
        for opened in stores.withLock({ list in defer { list = [] }; return list }) { await opened.close() }
    }
}
