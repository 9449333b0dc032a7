import ArgumentParser
import GatewayCore

/// `gatewayctl tenant create <id> --display-name ... [field flags]`
struct TenantCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a tenant (configVersion 1)."
    )

    @OptionGroup var tenantID: TenantIDArgument
    @OptionGroup(title: "Tenant fields") var fields: TenantFieldOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        // Checked here, not in validate(), so an unknown flag is reported first.
        guard fields.displayName != nil else { throw CLIError.invalid("--display-name is required") }
        var tenant = Tenant(id: tenantID.id, displayName: fields.displayName ?? tenantID.id)
        try fields.apply(to: &tenant)
        try TenantCommandSupport.validate(tenant)
        let access = try await StoreAccess.open(global, context: context, create: true)
        let created = try await access.store.create(tenant, actor: access.actor)
        if global.json {
            try context.printJSON(TenantDocument(created, secrets: .masked, sealer: nil))
        } else {
            context.print("created tenant \(created.id) (configVersion \(created.configVersion))")
        }
    }
}

/// Shared helpers of the tenant commands.
enum TenantCommandSupport {
    /// Full validation with errors naming flags.
    static func validate(_ tenant: Tenant) throws {
        do {
            try TenantValidator.validate(tenant)
        } catch {
            throw CLIError.invalid(error.flagMessage)
        }
    }

    /// The tenant, or ``TenantStoreError/notFound(_:)``.
    static func require(_ id: String, in store: any TenantStore) async throws -> Tenant {
        guard let tenant = try await store.tenant(id: id) else { throw TenantStoreError.notFound(id) }
        return tenant
    }
}
