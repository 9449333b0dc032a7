import ArgumentParser
import GatewayCore

/// `gatewayctl tenant update <id> [field flags]`: changes only the given fields.
struct TenantUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change the given fields of a tenant (an empty value clears an optional field)."
    )

    @OptionGroup var tenantID: TenantIDArgument
    @OptionGroup(title: "Tenant fields") var fields: TenantFieldOptions
    @OptionGroup var wait: GatewayWaitOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        guard !fields.isEmpty else {
            throw CLIError.invalid("nothing to update: give at least one field flag (see --help)")
        }
        let access = try await StoreAccess.open(global, context: context)
        let fields = self.fields
        let rasKey = fields.newRASClientKey()
        let old = try await TenantCommandSupport.require(tenantID.id, in: access.store)
        let updated = try await access.store.update(
            id: tenantID.id, actor: access.actor, trail: TenantTrail.local(user: access.actor, verb: .update)
        ) { tenant in
            try fields.apply(to: &tenant, rasKey: rasKey)
            try TenantCommandSupport.validate(tenant)
        }
        let changed = TenantField.changes(from: old, to: updated)
        let summary =
            changed.isEmpty ? "no field changed" : "changed " + changed.map(\.rawValue).joined(separator: ", ")
        try TenantCommandSupport.report(
            updated, line: "updated tenant \(updated.id) (configVersion \(updated.configVersion)): \(summary)",
            generatedRASKey: fields.rasClientKey == "generate" ? rasKey : nil, json: global.json, context: context)
        try await wait.wait(for: updated, context: context)
    }
}

/// `gatewayctl tenant suspend <id>`
struct TenantSuspendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "suspend", abstract: "Stop serving a tenant's routes.")

    @OptionGroup var tenantID: TenantIDArgument
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await TenantStatusChange.apply(.suspended, id: tenantID.id, global: global)
    }
}

/// `gatewayctl tenant resume <id>`
struct TenantResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Serve a suspended tenant again.")

    @OptionGroup var tenantID: TenantIDArgument
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await TenantStatusChange.apply(.active, id: tenantID.id, global: global)
    }
}

enum TenantStatusChange {
    static func apply(_ status: TenantStatus, id: String, global: GlobalOptions) async throws {
        let context = try CLIContext.require()
        let access = try await StoreAccess.open(global, context: context)
        let verb = status == .suspended ? "suspended" : "resumed"
        let current = try await TenantCommandSupport.require(id, in: access.store)
        let result = current.status == status
            ? current
            : try await access.store.update(id: id, actor: access.actor, trail: TenantTrail.local(user: access.actor, verb: .act)) {
                $0.status = status
            }
        if global.json {
            try context.printJSON(TenantDocument(result, secrets: .masked, sealer: nil))
        } else if current.status == status {
            context.print("tenant \(id) is already \(status.rawValue) (configVersion \(result.configVersion))")
        } else {
            context.print("\(verb) tenant \(id) (configVersion \(result.configVersion))")
        }
    }
}
