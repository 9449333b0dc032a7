import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl operator disable NAME`: the operator is refused at sign-in and on every call
/// from now on, its tokens and refresh tokens end at once; `operator enable NAME` undoes it.
struct OperatorDisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable",
        abstract: "Disable an operator: its sign-ins end now, and it cannot sign in until enabled again.")
    @Argument(help: "The operator's name.") var name: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await OperatorStateChange.run(name: name, disabled: true, global: global)
    }
}

struct OperatorEnableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Enable a disabled operator again (it signs in anew).")
    @Argument(help: "The operator's name.") var name: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await OperatorStateChange.run(name: name, disabled: false, global: global)
    }
}

/// What `operator disable|enable` share: one service call, one report.
enum OperatorStateChange {
    static func run(name: String, disabled: Bool, global: GlobalOptions) async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let changed = try await access.service.setDisabled(name: name, disabled: disabled, actor: access.actor)
        let state = disabled ? "disabled" : "enabled"
        try context.report(
            changed ? "\(name) is \(state)" : "\(name) was \(state) already; nothing changed",
            document: ["operator": name, "state": state, "changed": changed ? "true" : "false"], json: global.json)
    }
}
