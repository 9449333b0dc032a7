import Foundation
import GatewayServer

let code = await GatewayCommand.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
exit(code)
