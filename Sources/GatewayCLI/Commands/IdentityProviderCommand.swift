import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl idp add|list|remove --tenant T`: upstream OpenID Providers users sign in with.
struct IdentityProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idp",
        abstract: "Manage a tenant's upstream identity providers (\"Continue with …\" on the sign-in page).",
        discussion: "Register <issuer of the tenant>/oauth2/idp/callback as the redirect URI at the provider.",
        subcommands: [
            IdentityProviderAddCommand.self, IdentityProviderListCommand.self, IdentityProviderRemoveCommand.self,
        ]
    )
}

struct IdentityProviderAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an identity provider (the client secret is read from standard input and sealed).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "Short name in URLs and idp_hint ([a-z0-9][a-z0-9-]{0,31}).") var alias: String
    @Option(name: .customLong("name"), help: "Shown on the sign-in button (default: the alias).") var displayName:
        String?
    @Option(help: "The provider's issuer (https; its discovery document must name it exactly).") var issuer: String
    @Option(name: .customLong("client-id"), help: "The gateway's client id at the provider.") var clientID: String
    @Flag(
        name: .customLong("client-secret-stdin"),
        help: "Read the client secret from standard input (omit for a public client: PKCE only).") var secretStdin =
        false
    @Option(help: "Requested scopes, space-separated (must include openid).") var scope = "openid profile email"
    @Flag(
        name: .customLong("link-by-verified-email"),
        help: "Link a first sign-in to the local user with the same verified email (off by default).") var linkByEmail =
        false
    @Flag(name: .customLong("auto-redirect"), help: "The sign-in page goes straight to this provider.")
    var autoRedirect = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let secret =
            secretStdin ? SecretValue(try PasswordInput.line(context, what: "client secret", lengths: 1...1024)) : nil
        let provider = IdentityProvider(
            tenantID: tenant.tenant, alias: alias, displayName: displayName, issuer: issuer, clientID: clientID,
            clientSecret: secret,
            scopes: scope.split(separator: " ").map(String.init), linkByVerifiedEmail: linkByEmail,
            autoRedirect: autoRedirect)
        do { try provider.validate() } catch { throw CLIError.invalid("\(error)") }
        let document: IdentityProviderDocument
        if let remote = try await AdminRemote.select(global, context: context) {
            document = try await remote.addIdentityProvider(
                tenantID: tenant.tenant,
                .init(
                    alias: alias, displayName: displayName, issuer: issuer, clientID: clientID,
                    clientSecret: secret?.plaintext, scopes: provider.scopes, linkByVerifiedEmail: linkByEmail,
                    autoRedirect: autoRedirect))
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            let (user, now) = (a.access.actor, Date())
            do {
                try await a.auth.addIdentityProvider(provider) { new in
                    IdentityProviderTrail.draft(nil, new, actor: .local(user: user), requestID: nil, time: now)
                }
            } catch AuthStoreError.invalid(let reason) {
                throw CLIError.invalid(reason)
            }
            document = IdentityProviderDocument(provider)
        }
        if global.json { try context.printJSON(document); return }
        context.print("added identity provider \(alias) (\(issuer)) to tenant \(tenant.tenant)")
        context.print(
            "register this redirect URI at the provider: <issuer of tenant \(tenant.tenant)>/oauth2/idp/callback")
    }
}

struct IdentityProviderListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List a tenant's identity providers.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let providers: [IdentityProviderDocument]
        if let remote = try await AdminRemote.select(global, context: context) {
            providers = try await remote.identityProviders(tenantID: tenant.tenant)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            providers = try await a.auth.identityProviders(tenantID: tenant.tenant).map(IdentityProviderDocument.init)
        }
        if global.json { try context.printJSON(providers); return }
        var table = TextTable(header: ["ALIAS", "NAME", "ISSUER", "CLIENT ID", "SECRET", "OPTIONS"])
        for p in providers {
            let options = [
                p.autoRedirect ? "auto-redirect" : nil, p.linkByVerifiedEmail ? "link-by-verified-email" : nil,
            ].compactMap { $0 }
            table.rows.append([
                p.alias, p.displayName, p.issuer, p.clientID, p.clientSecret ?? "(public)",
                options.isEmpty ? "-" : options.joined(separator: ","),
            ])
        }
        table.lines.forEach(context.print)
    }
}

struct IdentityProviderRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an identity provider (its users' links stay: they name the issuer).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The provider's alias.") var alias: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        if let remote = try await AdminRemote.select(global, context: context) {
            try await remote.removeIdentityProvider(tenantID: tenant.tenant, alias: alias)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            let (user, now) = (a.access.actor, Date())
            try await a.auth.removeIdentityProvider(tenantID: tenant.tenant, alias: alias) { old in
                IdentityProviderTrail.draft(old, nil, actor: .local(user: user), requestID: nil, time: now)
            }
        }
        try context.report(
            "removed identity provider \(alias) from tenant \(tenant.tenant)", document: ["removed": alias],
            json: global.json)
    }
}
