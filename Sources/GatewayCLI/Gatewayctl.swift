import ArgumentParser
import Foundation
import GatewayCore
import OpenAPIRuntime

/// Runs gatewayctl in-process: parse, run, map every outcome to an exit code.
///
/// Exit codes: 0 success (including `--help` and `--generate-completion-script`),
/// 2 invalid input (unknown or bad flag, bad value, missing tenant, validation failure;
/// one `error: ...` line on stderr, nothing written), 1 any other failure.
public enum Gatewayctl {
    /// Exit code for success.
    public static let success: Int32 = 0
    /// Exit code for failures that are not the operator's input.
    public static let failure: Int32 = 1
    /// Exit code for invalid input.
    public static let invalidInput: Int32 = 2

    /// Runs one gatewayctl invocation.
    /// - Parameters:
    ///   - arguments: the arguments after the program name.
    ///   - environment: the process environment (`GATEWAY_DATABASE_PATH`, `GATEWAY_MASTER_KEY`, ...).
    ///   - standardInput: reads all of standard input (used by `tenant import -`).
    ///   - output: where stdout and stderr text goes.
    /// - Returns: the process exit code.
    public static func run(
        arguments: [String],
        environment: [String: String],
        standardInput: @escaping @Sendable () throws -> Data = { Data() },
        output: any CLIOutput
    ) async -> Int32 {
        let context = CLIContext(environment: environment, output: output, standardInput: standardInput)
        let command: any ParsableCommand
        do {
            command = try await RootCommand.asyncParseAsRoot(arguments)
        } catch {
            return report(parseError: error, output: output)
        }
        do {
            try await CLIContext.$current.withValue(context) {
                if var async = command as? any AsyncParsableCommand {
                    try await async.run()
                } else {
                    var sync = command
                    try sync.run()
                }
            }
            await context.openedStores.closeAll()
            return success
        } catch {
            await context.openedStores.closeAll()
            return report(runError: error, output: output)
        }
    }

    private static func report(parseError error: any Error, output: any CLIOutput) -> Int32 {
        let code = RootCommand.exitCode(for: error)
        if code == .success {
            let text = RootCommand.fullMessage(for: error)
            output.writeOutput(text.hasSuffix("\n") ? text : text + "\n")
            return success
        }
        writeError(RootCommand.message(for: error), output: output)
        return invalidInput
    }

    private static func report(runError error: any Error, output: any CLIOutput) -> Int32 {
        switch error {
        case let error as ExitCode:
            return error.rawValue
        case let error as CLIError:
            writeError(error.description, output: output)
            if case .invalid = error { return invalidInput }
            return failure
        case let error as TenantValidationError:
            writeError(error.flagMessage, output: output)
            return invalidInput
        case let error as TenantStoreError:
            writeError(error.description, output: output)
            return invalidInput
        case let error as AuthStoreError:
            writeError(error.description, output: output)
            return invalidInput
        case let error as OperatorError:
            writeError(error.description, output: output)
            return invalidInput
        case let error as ClientError:
            writeError(AdminUnreachable.message(error), output: output)
            return failure
        default:
            // ArgumentParser's own errors (help and completion requests surface here
            // when a help command runs, validation errors) and everything else.
            let code = RootCommand.exitCode(for: error)
            if code == .success || code == .validationFailure {
                return report(parseError: error, output: output)
            }
            writeError("\(error)", output: output)
            return failure
        }
    }

    /// `error: <first line>`, exactly one line.
    private static func writeError(_ message: String, output: any CLIOutput) {
        let line = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? "failed"
        let text = line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line
        output.writeError("error: \(text)\n")
    }
}
