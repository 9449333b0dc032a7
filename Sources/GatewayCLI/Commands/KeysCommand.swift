import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl keys rotate|retire|list --tenant T`
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage a tenant's ES256 token-signing keys.",
        discussion: "A tenant gets its first key automatically on first use (first token or JWKS request).",
        subcommands: [KeysRotateCommand.self, KeysRetireCommand.self, KeysListCommand.self]
    )
}

struct KeyDocument: Encodable {
    var kid: String
    var state: String
    var createdAt: Date
    var signing: Bool
}

struct KeysRotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Add a new active signing key; older keys stay published until retired.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let key = SigningKey.generate(tenantID: tenant.tenant)
        try await a.auth.addSigningKey(key)
        if global.json {
            try context.printJSON(KeyDocument(kid: key.kid, state: key.state.rawValue, createdAt: key.createdAt, signing: true))
        } else {
            context.print("added signing key \(key.kid) to tenant \(tenant.tenant); it signs new tokens within 5 seconds")
        }
    }
}

struct KeysRetireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retire", abstract: "Stop publishing a key (tokens it signed stop verifying).")
    @OptionGroup var tenant: TenantOption
    @Option(help: ArgumentHelp("Key id.", valueName: "kid")) var kid: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let active = try await a.auth.signingKeys(tenantID: tenant.tenant).filter { $0.state == .active }
        guard active.contains(where: { $0.kid == kid }) else { throw CLIError.invalid("no active key \(kid) in tenant \(tenant.tenant)") }
        guard active.count > 1 else { throw CLIError.invalid("\(kid) is the tenant's only active key; run keys rotate first") }
        try await a.auth.retireSigningKey(tenantID: tenant.tenant, kid: kid)
        context.print("retired signing key \(kid) of tenant \(tenant.tenant)")
    }
}

struct KeysListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List signing keys (newest first).")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let keys = try await a.auth.signingKeys(tenantID: tenant.tenant)
        let signer = keys.first { $0.state == .active }?.kid
        let docs = keys.map { KeyDocument(kid: $0.kid, state: $0.state.rawValue, createdAt: $0.createdAt, signing: $0.kid == signer) }
        if global.json { try context.printJSON(docs); return }
        if docs.isEmpty { context.print("no keys yet (one is created on first use)") }
        for d in docs { context.print("\(d.kid)  \(d.state)\(d.signing ? "  (signing)" : "")  \(ISO8601DateFormatter().string(from: d.createdAt))") }
    }
}
