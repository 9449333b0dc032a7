import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl keys rotate|retire|list --tenant T`
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage a tenant's token-signing keys (ES256 and RS256).",
        discussion:
            "A tenant gets its first key of each algorithm automatically on first use (first token or JWKS request). ES256 signs access tokens (and ID tokens of clients registered with --id-token-alg ES256); RS256 signs ID tokens.",
        subcommands: [KeysRotateCommand.self, KeysRetireCommand.self, KeysListCommand.self]
    )
}

struct KeyDocument: Encodable {
    var kid: String
    var alg: String
    var state: String
    var createdAt: Date
    var signing: Bool
}

struct KeysRotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate", abstract: "Add a new active signing key; older keys stay published until retired.")
    @OptionGroup var tenant: TenantOption
    @Option(help: ArgumentHelp("Algorithm of the new key: ES256 or RS256.", valueName: "alg")) var alg: String = "ES256"
    @Option(help: ArgumentHelp("RSA key size (RS256 only): 2048, 3072 or 4096.", valueName: "bits")) var rsaBits: Int =
        2048
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        guard let algorithm = SigningKey.Algorithm(rawValue: alg.uppercased()) else {
            throw CLIError.invalid("--alg must be ES256 or RS256")
        }
        guard [2048, 3072, 4096].contains(rsaBits) else {
            throw CLIError.invalid("--rsa-bits must be 2048, 3072 or 4096")
        }
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let key = try SigningKey.generate(tenantID: tenant.tenant, algorithm: algorithm, rsaBits: rsaBits)
        try await a.auth.addSigningKey(key)
        if global.json {
            try context.printJSON(
                KeyDocument(
                    kid: key.kid, alg: key.algorithm.rawValue, state: key.state.rawValue, createdAt: key.createdAt,
                    signing: true))
        } else {
            context.print(
                "added \(key.algorithm.rawValue) signing key \(key.kid) to tenant \(tenant.tenant); it signs new tokens within 5 seconds"
            )
        }
    }
}

struct KeysRetireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retire", abstract: "Stop publishing a key (tokens it signed stop verifying).")
    @OptionGroup var tenant: TenantOption
    @Option(help: ArgumentHelp("Key id.", valueName: "kid")) var kid: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let active = try await a.auth.signingKeys(tenantID: tenant.tenant).filter { $0.state == .active }
        guard let key = active.first(where: { $0.kid == kid }) else {
            throw CLIError.invalid("no active key \(kid) in tenant \(tenant.tenant)")
        }
        guard active.filter({ $0.algorithm == key.algorithm }).count > 1 else {
            throw CLIError.invalid(
                "\(kid) is the tenant's only active \(key.algorithm.rawValue) key; run keys rotate --alg \(key.algorithm.rawValue) first"
            )
        }
        try await a.auth.retireSigningKey(tenantID: tenant.tenant, kid: kid)
        try context.report(
            "retired signing key \(kid) of tenant \(tenant.tenant)",
            document: ["retired": kid, "tenant": tenant.tenant], json: global.json)
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
        // The newest active key of each algorithm signs.
        let signers = Set(
            SigningKey.Algorithm.allCases.compactMap { algorithm in
                keys.first { $0.state == .active && $0.algorithm == algorithm }?.kid
            })
        let docs = keys.map {
            KeyDocument(
                kid: $0.kid, alg: $0.algorithm.rawValue, state: $0.state.rawValue, createdAt: $0.createdAt,
                signing: signers.contains($0.kid))
        }
        if global.json {
            try context.printJSON(docs)
            return
        }
        if docs.isEmpty { context.print("no keys yet (one of each algorithm is created on first use)") }
        guard !docs.isEmpty else { return }
        var table = TextTable(header: ["KID", "ALG", "STATE", "SIGNING", "CREATED"])
        for d in docs {
            table.rows.append([
                d.kid, d.alg, d.state, d.signing ? "yes" : "no", ISO8601DateFormatter().string(from: d.createdAt),
            ])
        }
        table.lines.forEach(context.print)
    }
}
