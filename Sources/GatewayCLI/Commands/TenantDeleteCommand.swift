import ArgumentParser
import GatewayCore

/// `gatewayctl tenant delete <id> --yes`
struct TenantDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a tenant and everything it owns (requires --yes; the audit log is kept)."
    )

    @OptionGroup var tenantID: TenantIDArgument
    @Flag(help: "Confirm the deletion.") var yes = false
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var deleted: String
    }

    func run() async throws {
        let context = try CLIContext.require()
        guard yes else { throw CLIError.invalid("refusing to delete tenant \(tenantID.id) without --yes") }
        let access = try await StoreAccess.open(global, context: context)
        try await access.store.delete(id: tenantID.id, actor: access.actor)
        if global.json {
            try context.printJSON(Report(deleted: tenantID.id))
        } else {
            context.print("deleted tenant \(tenantID.id)")
        }
    }
}
