import Foundation
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
        let fields = self.fields
        let rasKey = fields.newRASClientKey()
        let generated = fields.rasClientKey == "generate" ? rasKey : nil
        if let remote = try await AdminRemote.select(global, context: context) {
            let patch = try fields.patch(rasKey: rasKey)
            let old = try await remote.tenant(id: tenantID.id)
            // At the revision read: a change made in between is refused (412), never overwritten.
            let updated = try await remote.updateTenant(id: tenantID.id, patch: patch, revision: old.configVersion ?? 0)
            let (before, after) = (try old.shown(), try updated.shown())
            // The API never answers a secret: one named in the patch counts as changed.
            let given: [(TenantField, String?)] = [
                (.platformSubscriptionKey, patch.platform?.subscriptionKey), (.provisioningAPIKey, patch.provisioning?.apiKey),
            ]
            var secrets: Set<TenantField> = []
            for (field, value) in given where before.masked[field] != after.masked[field] || value?.isEmpty == false {
                secrets.insert(field)
            }
            let plain = Set(TenantField.changes(from: before.tenant, to: after.tenant))
            let changed = TenantField.allCases.filter { secrets.contains($0) || plain.contains($0) }
            try TenantCommandSupport.report(
                updated, line: Self.line(after.tenant, changed), generatedRASKey: generated, json: global.json,
                context: context)
            return try await wait.wait(for: after.tenant, context: context)
        }
        let access = try await StoreAccess.open(global, context: context)
        let old = try await TenantCommandSupport.require(tenantID.id, in: access.store)
        let updated = try await access.store.update(
            id: tenantID.id, actor: access.actor, trail: TenantTrail.change(actor: .local(user: access.actor), verb: .update, time: Date())
        ) { tenant in
            try fields.apply(to: &tenant, rasKey: rasKey)
        }
        try TenantCommandSupport.report(
            try TenantDocument(updated, secrets: .masked, sealer: nil),
            line: Self.line(updated, TenantField.changes(from: old, to: updated)), generatedRASKey: generated,
            json: global.json, context: context)
        try await wait.wait(for: updated, context: context)
    }

    static func line(_ updated: Tenant, _ changed: [TenantField]) -> String {
        let summary = changed.isEmpty ? "no field changed" : "changed " + changed.map(\.rawValue).joined(separator: ", ")
        return "updated tenant \(updated.id) (configVersion \(updated.configVersion)): \(summary)"
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
        if let remote = try await AdminRemote.select(global, context: context) {
            let current = try await remote.tenant(id: id)
            let result = try await remote.setTenantStatus(id: id, status)
            return try report(
                result, status: status, unchanged: current.status == status, version: result.configVersion ?? 0,
                json: global.json, context: context)
        }
        let access = try await StoreAccess.open(global, context: context)
        let current = try await TenantCommandSupport.require(id, in: access.store)
        let result = current.status == status
            ? current
            : try await access.store.update(id: id, actor: access.actor, trail: TenantTrail.change(actor: .local(user: access.actor), verb: .act, time: Date())) {
                $0.status = status
            }
        try report(
            TenantDocument(result, secrets: .masked, sealer: nil), status: status, unchanged: current.status == status,
            version: result.configVersion, json: global.json, context: context)
    }

    private static func report(
        _ document: TenantDocument, status: TenantStatus, unchanged: Bool, version: Int64, json: Bool,
        context: CLIContext
    ) throws {
        if json {
            try context.printJSON(document)
        } else if unchanged {
            context.print("tenant \(document.id) is already \(status.rawValue) (configVersion \(version))")
        } else {
            context.print("\(status == .suspended ? "suspended" : "resumed") tenant \(document.id) (configVersion \(version))")
        }
    }
}
