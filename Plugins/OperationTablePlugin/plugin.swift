import Foundation
import PackagePlugin

/// Generates the gateway's operation table from `OpenAPI/gateway.yaml` (see
/// `OperationTableGenerator`), so the edge's route facts have one source: the contract.
@main
struct OperationTablePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let contract = context.package.directoryURL.appending(path: "OpenAPI/gateway.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "ContractOperation+Table.swift")
        let admin = context.package.directoryURL.appending(path: "OpenAPI/admin.yaml")
        let adminOutput = context.pluginWorkDirectoryURL.appending(path: "AdminContractPaths.swift")
        let generator = try context.tool(named: "OperationTableGenerator").url
        return [
            .buildCommand(
                displayName: "Generating the operation table from OpenAPI/gateway.yaml",
                executable: generator,
                arguments: [contract.path, output.path],
                inputFiles: [contract],
                outputFiles: [output]
            ),
            // The admin listener's paths and methods (its 405 and Allow).
            .buildCommand(
                displayName: "Generating the admin paths from OpenAPI/admin.yaml",
                executable: generator,
                arguments: ["--paths", "AdminContractPaths", admin.path, adminOutput.path],
                inputFiles: [admin],
                outputFiles: [adminOutput]
            ),
        ]
    }
}
