import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl tenant import FILE`: all or nothing.
struct TenantImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Create or replace tenants from an export file, all or nothing.",
        discussion:
            "Secrets may be sealed (same master key) or plaintext. Every tenant is validated before anything is written."
    )

    @Argument(help: ArgumentHelp("Export file to read; '-' reads standard input.", valueName: "file")) var file: String
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var imported: [String]
    }

    func run() async throws {
        let context = try CLIContext.require()
        let data = try InputFile.read(file, context: context)
        let document: TenantExportFile
        do {
            document = try JSONCoding.decoder().decode(TenantExportFile.self, from: data)
        } catch {
            throw CLIError.invalid("\(file) is not a tenant export: \(JSONCoding.describe(error))")
        }
        if let format = document.format, format != TenantExportFile.formatName {
            throw CLIError.invalid("\(file) has format \"\(format)\", expected \"\(TenantExportFile.formatName)\"")
        }
        let access = try await StoreAccess.open(global, context: context, create: true)
        var tenants: [Tenant] = []
        for (index, item) in document.tenants.enumerated() {
            do {
                let tenant = try item.tenant(sealer: access.sealer)
                try TenantValidator.validate(tenant)
                tenants.append(tenant)
            } catch let error as TenantValidationError {
                throw CLIError.invalid("tenants[\(index)] (\(item.id)): \(error.description)")
            } catch {
                throw CLIError.invalid("tenants[\(index)] (\(item.id)): \(error)")
            }
        }
        try await access.store.importTenants(tenants, actor: access.actor)
        if global.json {
            try context.printJSON(Report(imported: tenants.map(\.id)))
        } else {
            context.print("imported \(tenants.count) tenant(s): \(tenants.map(\.id).joined(separator: ", "))")
        }
    }
}
