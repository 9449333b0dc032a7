import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl keys rotate|retire|list --tenant T`
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage a tenant's token-signing keys (ES256 and RS256).",
        discussion: """
            A tenant gets its first key of each algorithm automatically on first use (first token or \
            JWKS request). ES256 signs access tokens (and ID tokens of clients registered with \
            --id-token-alg ES256); RS256 signs ID tokens. A key's life: next (published, not signing) \
            → signing → verify-only (published, not signing) → retired (unpublished). Every gateway \
            moves a key between them at the stored times.
            """,
        subcommands: [KeysRotateCommand.self, KeysRetireCommand.self, KeysListCommand.self]
    )

    /// How long a key published before it signs by default: longer than the JWKS's
    /// `Cache-Control: max-age` (300 s by default) plus the gateways' key reload (5 s).
    static let defaultSignAfter = "15m"

    /// The rules, over the database.
    static func service(_ a: AuthAccess) -> SigningKeyService {
        SigningKeyService(keys: a.auth, clients: a.auth)
    }
}

struct KeysRotateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Add a key: published now, signing after --sign-after; older keys then verify only.",
        discussion: """
            The new key is published in the JWKS at once and signs from --sign-after on (default \
            \(KeysCommand.defaultSignAfter)), so relying parties that cache the JWKS for its max-age have \
            it before any token it signs. Older keys of its algorithm stay published (verify-only) \
            until retired.
            """)
    @OptionGroup var tenant: TenantOption
    @Option(help: ArgumentHelp("Algorithm of the new key: ES256 or RS256.", valueName: "alg")) var alg: String = "ES256"
    @Option(help: ArgumentHelp("RSA key size (RS256 only): 2048, 3072 or 4096.", valueName: "bits")) var rsaBits: Int =
        2048
    @Option(
        help: ArgumentHelp(
            "How long the key is published before it signs: 90s, 15m, 2h, 1d; 0 signs at once (tests, emergencies).",
            valueName: "duration"))
    var signAfter: String = KeysCommand.defaultSignAfter
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard CLIDuration.seconds(signAfter) != nil else {
            throw ValidationError("--sign-after must be a duration such as 90s, 15m, 2h or 1d (or 0)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        guard let algorithm = SigningKey.Algorithm(rawValue: alg.uppercased()) else {
            throw CLIError.invalid("--alg must be ES256 or RS256")
        }
        guard SigningKeyService.rsaBits.contains(rsaBits) else {
            throw CLIError.invalid("--rsa-bits must be 2048, 3072 or 4096")
        }
        let delay = CLIDuration.seconds(signAfter) ?? 0
        if delay == 0 {
            context.printError(
                "warning: the new key signs at once; relying parties holding a JWKS fetched before now cannot verify "
                    + "its tokens until they fetch it again")
        }
        let key: SigningKeyDocument
        if let remote = try await AdminRemote.select(global, context: context) {
            key = try await remote.rotateSigningKey(
                tenantID: tenant.tenant, algorithm: algorithm, rsaBits: rsaBits, signAfter: delay)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            key = try await KeysCommand.service(a).rotate(
                tenantID: tenant.tenant, algorithm: algorithm, rsaBits: rsaBits, signAfter: TimeInterval(delay),
                now: Date(), actor: .local(user: a.access.actor), requestID: nil)
        }
        try context.report(
            "added \(key.alg) key \(key.kid) to tenant \(tenant.tenant): published now, signs from "
                + "\(ISO8601DateFormatter().string(from: key.signFrom))",
            document: key, json: global.json)
    }
}

struct KeysRetireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retire",
        abstract: "Stop a key signing now; unpublish it once every token it can have signed has expired.",
        discussion: """
            The key signs nothing from now on (a published next key of its algorithm signs at once \
            instead) and stays in the JWKS for the longest lifetime of a token it can have signed \
            (the tenant's longest access-token lifetime, mini-app tokens' 5 minutes, plus a minute \
            of clock skew), so no valid token is refused. With --now (a compromised key) it is \
            unpublished at once and every token it signed is refused; if it was the only signer, \
            gateways make a new key that signs at once.
            """)
    @OptionGroup var tenant: TenantOption
    @Option(help: ArgumentHelp("Key id.", valueName: "kid")) var kid: String
    @Flag(help: "Unpublish at once: tokens it signed are refused (a compromised key).") var now = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let retirement: SigningKeyRetirement
        if let remote = try await AdminRemote.select(global, context: context) {
            retirement = try await remote.retireSigningKey(tenantID: tenant.tenant, kid: kid, immediately: now)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            do {
                retirement = try await KeysCommand.service(a).retire(
                    tenantID: tenant.tenant, kid: kid, immediately: now, now: Date(), actor: .local(user: a.access.actor),
                    requestID: nil)
            } catch SigningKeyError.notPublished {
                throw CLIError.invalid("no published key \(kid) in tenant \(tenant.tenant)")
            } catch SigningKeyError.onlySigner(_, let algorithm) {
                throw CLIError.invalid(
                    "\(kid) is the tenant's only \(algorithm.rawValue) key that signs; run keys rotate --alg "
                        + "\(algorithm.rawValue) first (or --now for a compromised key)")
            }
        }
        if let promoted = retirement.promoted {
            context.printError(
                "warning: \(promoted) signs from now, before its scheduled time; relying parties holding a JWKS "
                    + "fetched before it was published cannot verify its tokens until they fetch it again")
        }
        try context.report(
            now
                ? "retired signing key \(kid) of tenant \(tenant.tenant) at once: tokens it signed are refused"
                : "signing key \(kid) of tenant \(tenant.tenant) signs no more; unpublished at "
                    + ISO8601DateFormatter().string(from: retirement.unpublishAt),
            document: retirement, json: global.json)
    }
}

struct KeysListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List signing keys (newest first) with their state and next step.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let docs: [SigningKeyDocument]
        if let remote = try await AdminRemote.select(global, context: context) {
            docs = try await remote.signingKeys(tenantID: tenant.tenant)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            docs = try await KeysCommand.service(a).documents(tenantID: tenant.tenant, at: Date())
        }
        if global.json {
            try context.printJSON(docs)
            return
        }
        if docs.isEmpty { context.print("no keys yet (one of each algorithm is created on first use)") }
        guard !docs.isEmpty else { return }
        let time = ISO8601DateFormatter()
        var table = TextTable(header: ["KID", "ALG", "STATE", "SIGNS FROM", "NEXT", "CREATED"])
        for d in docs {
            let next = zip(d.nextState, d.nextAt).map { "\($0) at \(time.string(from: $1))" } ?? "-"
            table.rows.append([d.kid, d.alg, d.state, time.string(from: d.signFrom), next, time.string(from: d.createdAt)])
        }
        table.lines.forEach(context.print)
    }
}

/// Both values, or nil.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
