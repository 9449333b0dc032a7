import Foundation
import PackagePlugin

/// Generates the gateway's operation table from `OpenAPI/gateway.yaml` (see
/// `OperationTableGenerator`), so the edge's route facts have one source: the contract.
@main
struct OperationTablePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let contract = context.package.directoryURL.appending(path: "OpenAPI/gateway.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "ContractOperation+Table.swift")
        return [
            .buildCommand(
                displayName: "Generating the operation table from OpenAPI/gateway.yaml",
                executable: try context.tool(named: "OperationTableGenerator").url,
                arguments: [contract.path, output.path],
                inputFiles: [contract],
                outputFiles: [output]
            )
        ]
    }
}
