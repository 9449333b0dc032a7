import Foundation
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
    @OptionGroup var wait: GatewayWaitOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        // Checked here, not in validate(), so an unknown flag is reported first.
        guard fields.displayName != nil else { throw CLIError.invalid("--display-name is required") }
        let rasKey = fields.newRASClientKey()
        let generated = fields.rasClientKey == "generate" ? rasKey : nil
        if let remote = try await AdminRemote.select(global, context: context) {
            let patch = try fields.patch(rasKey: rasKey)
            let created = try await remote.createTenant(id: tenantID.id, patch: patch)
            try TenantCommandSupport.report(
                created, line: "created tenant \(created.id) (configVersion \(created.configVersion ?? 1))",
                generatedRASKey: generated, json: global.json, context: context)
            return try await wait.wait(for: try created.shown().tenant, context: context)
        }
        var tenant = Tenant(id: tenantID.id, displayName: fields.displayName ?? tenantID.id)
        try fields.apply(to: &tenant, rasKey: rasKey)
        let access = try await StoreAccess.open(global, context: context, create: true)
        let (user, now) = (access.actor, Date())
        let created = try await access.store.create(tenant, actor: user) { created in
            TenantTrail.draft(old: nil, new: created, actor: .local(user: user), requestID: nil, verb: .create, time: now)
        }
        try TenantCommandSupport.report(
            try TenantDocument(created, secrets: .masked, sealer: nil),
            line: "created tenant \(created.id) (configVersion \(created.configVersion))",
            generatedRASKey: generated, json: global.json, context: context)
        try await wait.wait(for: created, context: context)
    }
}

/// Shared helpers of the tenant commands.
enum TenantCommandSupport {
    /// Prints a created or updated tenant (`line`, or its document with `--json`) and, once,
    /// a client key gatewayctl generated (only its hash is stored).
    static func report(
        _ document: TenantDocument, line: String, generatedRASKey: String?, json: Bool, context: CLIContext
    ) throws {
        struct WithKey: Encodable {
            var tenant: TenantDocument
            var rasClientKey: String
        }
        if json {
            if let generatedRASKey {
                try context.printJSON(WithKey(tenant: document, rasClientKey: generatedRASKey))
            } else {
                try context.printJSON(document)
            }
            return
        }
        context.print(line)
        if let generatedRASKey {
            context.print("RAS client key (shown once; the host app's RASProjectSubscriptionKey): \(generatedRASKey)")
        }
    }

    /// The tenant, or ``TenantStoreError/notFound(_:)``.
    static func require(_ id: String, in store: any TenantStore) async throws -> Tenant {
        guard let tenant = try await store.tenant(id: id) else { throw TenantStoreError.notFound(id) }
        return tenant
    }
}
