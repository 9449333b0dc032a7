import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl operator delete NAME --yes`: the operator, its bindings and sign-ins go; the
/// audit trail keeps its records.
struct OperatorDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an operator with its bindings and sign-ins (the audit trail keeps its records).",
        discussion: "Asks for --yes; `operator disable` is the reversible alternative.")
    @Argument(help: "The operator's name.") var name: String
    @Flag(help: "Confirm the deletion (it cannot be undone).") var yes = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard yes else {
            throw ValidationError("deleting an operator cannot be undone: add --yes (or use `operator disable`)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        try await access.service.delete(name: name, actor: access.actor)
        try context.report(
            "deleted operator \(name)", document: ["operator": name, "deleted": "true"], json: global.json)
    }
}

/// `gatewayctl operator rotate-secret NAME`: a service account's new secret, shown once.
struct OperatorRotateSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-secret",
        abstract: "Give a service account a new secret (shown once); the old one and its tokens stop working.")
    @Argument(help: "The service account's name.") var name: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let secret = try await access.service.rotateSecret(name: name, actor: access.actor)
        try context.report(
            "new secret of \(name) (shown once; the old one no longer works):\n\(secret)",
            document: ["clientId": name, "clientSecret": secret], json: global.json)
    }
}
