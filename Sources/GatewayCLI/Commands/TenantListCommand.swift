import ArgumentParser
import GatewayCore

/// `gatewayctl tenant list`
struct TenantListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List tenants, sorted by id.",
        discussion:
            "Page through many with --limit and --after (the last id shown); the text output ends with the command for the next page."
    )

    @Flag(help: "Show secrets in plaintext (JSON output only lists them).") var reveal = false
    @Option(help: "At most this many tenants (1-10000; default: all).") var limit: Int?
    @Option(help: "Only tenants whose id sorts after this one (the last id of the previous page).") var after: String?
    @Option(help: "Only tenants with this status (active or suspended).") var status: TenantStatus?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let limit, !(1...10_000).contains(limit) {
            throw ValidationError("--limit must be between 1 and 10000, got \(limit)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let page: (tenants: [TenantDocument], more: Bool)
        if let remote = try await AdminRemote.select(global, context: context) {
            guard !reveal else { throw CLIError.invalid("the admin API never answers secrets: --reveal needs --local") }
            page = try await remote.tenants(after: after, status: status, limit: limit)
        } else {
            let access = try await StoreAccess.open(global, context: context)
            let found = Self.page(try await access.store.allTenants(), after: after, status: status, limit: limit)
            let presentation: SecretPresentation = reveal ? .plaintext : .masked
            page = (try found.tenants.map { try TenantDocument($0, secrets: presentation, sealer: nil) }, found.more)
        }
        if global.json {
            try context.printJSON(page.tenants)
        } else {
            TenantText.list(try page.tenants.map { try $0.shown().tenant }).forEach(context.print)
            if page.more, let last = page.tenants.last {
                context.print(
                    "… more tenants: gatewayctl tenant list --after \(last.id) --limit \(limit ?? page.tenants.count)")
            }
        }
    }

    /// The tenants after `after` (by id) with `status`, at most `limit`; `more` when some were left out.
    static func page(
        _ tenants: [Tenant], after: String?, status: TenantStatus?, limit: Int?
    ) -> (tenants: [Tenant], more: Bool) {
        let matching = tenants.sorted { $0.id < $1.id }.filter { tenant in
            (after.map { tenant.id > $0 } ?? true) && (status.map { tenant.status == $0 } ?? true)
        }
        guard let limit, matching.count > limit else { return (matching, false) }
        return (Array(matching.prefix(limit)), true)
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
        if let remote = try await AdminRemote.select(global, context: context) {
            guard !reveal else { throw CLIError.invalid("the admin API never answers secrets: --reveal needs --local") }
            let document = try await remote.tenant(id: tenantID.id)
            if global.json { return try context.printJSON(document) }
            let shown = try document.shown()
            return TenantText.show(shown.tenant, reveal: false, masked: shown.masked).forEach(context.print)
        }
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
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Show a tenant's audit log, newest first.")

    @OptionGroup var tenantID: TenantIDArgument
    @Option(help: "Maximum rows (1-10000).") var limit = 50
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...10_000).contains(limit) else {
            throw ValidationError("--limit must be between 1 and 10000, got \(limit)")
        }
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

extension TenantStatus: ExpressibleByArgument {}
