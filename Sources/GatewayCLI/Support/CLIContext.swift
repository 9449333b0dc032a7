import Foundation

/// What a running command may touch besides its arguments: environment, input, output.
///
/// ``Gatewayctl/run(arguments:environment:standardInput:output:)`` binds it as a task
/// local for the duration of one command; there is no global mutable state.
struct CLIContext: Sendable {
    var environment: [String: String]
    var output: any CLIOutput
    var standardInput: @Sendable () throws -> Data

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

    /// Writes `value` as pretty JSON (sorted keys) to standard output.
    func printJSON(_ value: some Encodable) throws {
        print(try JSONCoding.encodeString(value))
    }
}
