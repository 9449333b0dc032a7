import ArgumentParser
import GatewayCore

/// `gatewayctl tenant list`
struct TenantListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List all tenants.")

    @Flag(help: "Show secrets in plaintext (JSON output only lists them).") var reveal = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await StoreAccess.open(global, context: context)
        let tenants = try await access.store.allTenants()
        if global.json {
            let presentation: SecretPresentation = reveal ? .plaintext : .masked
            try context.printJSON(tenants.map { try TenantDocument($0, secrets: presentation, sealer: nil) })
        } else {
            TenantText.list(tenants).forEach(context.print)
        }
    }
}

/// `gatewayctl tenant show <id>`
struct TenantShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show every field of a tenant.")

    @OptionGroup var tenantID: TenantIDArgument
    @Flag(help: "Show secrets in plaintext instead of masked.") var reveal = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await StoreAccess.open(global, context: context)
        let tenant = try await TenantCommandSupport.require(tenantID.id, in: access.store)
        if global.json {
            try context.printJSON(TenantDocument(tenant, secrets: reveal ? .plaintext : .masked, sealer: nil))
        } else {
            TenantText.show(tenant, reveal: reveal).forEach(context.print)
        }
    }
}

/// `gatewayctl tenant audit <id>`
struct TenantAuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "Show a tenant's audit log, newest first.")

    @OptionGroup var tenantID: TenantIDArgument
    @Option(help: "Maximum rows (1-10000).") var limit = 50
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1 ... 10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000, got \(limit)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await StoreAccess.open(global, context: context)
        let entries = try await access.store.auditLog(tenantID: tenantID.id, limit: limit)
        if global.json {
            try context.printJSON(entries)
        } else {
            TenantText.audit(entries).forEach(context.print)
        }
    }
}
