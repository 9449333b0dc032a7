import Foundation
import GatewayCLI

let code = await Gatewayctl.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment,
    standardInput: { FileHandle.standardInput.readDataToEndOfFile() },
    output: StandardStreams()
)
exit(code)
