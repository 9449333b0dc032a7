import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl client add|list|show|update|remove --tenant T`
struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Manage a tenant's OAuth clients.",
        subcommands: [
            ClientAddCommand.self, ClientImportCommand.self, ClientListCommand.self, ClientShowCommand.self,
            ClientUpdateCommand.self, ClientRemoveCommand.self,
        ]
    )
}

/// Settings flags shared by add and update.
struct ClientSettingOptions: ParsableArguments {
    @Option(
        name: .customLong("redirect-uri"), help: "Redirect URI (repeatable; exact match, loopback may differ in port).")
    var redirectURIs: [String] = []
    @Option(name: .customLong("post-logout-redirect-uri"), help: "Post-logout redirect URI (repeatable).")
    var postLogoutRedirectURIs: [String] = []
    @Option(
        name: .customLong("scope"),
        help: "Optional scope, granted when asked for (repeatable; default openid profile email offline_access).")
    var scopes: [String] = []
    @Option(
        name: .customLong("default-scope"),
        help:
            "Default scope, granted unasked (repeatable; replaces the list; a new client holds openid profile email, a --first-party one also host miniapp-data messages devices sign-in-requests account)."
    ) var defaultScopes: [String] = []
    @Flag(name: .customLong("require-par"), inversion: .prefixedNo, help: "Require pushed authorization requests.")
    var requirePAR: Bool?
    @Flag(name: .customLong("dpop"), inversion: .prefixedNo, help: "Bind tokens with DPoP (proof required).") var dpop:
        Bool?
    @Option(name: .customLong("access-token-lifetime"), help: "Access-token lifetime in seconds (default 600).")
    var accessLifetime: Int?
    @Option(
        name: .customLong("refresh-idle-lifetime"), help: "Refresh-token idle lifetime in seconds (default 7 days).")
    var refreshIdle: Int?
    @Option(
        name: .customLong("refresh-absolute-lifetime"),
        help: "Refresh-family absolute lifetime in seconds (default 30 days).") var refreshAbsolute: Int?
    @Flag(
        name: .customLong("dpop-nonce"), inversion: .prefixedNo,
        help: "Require a server nonce in DPoP proofs at the token endpoint (RFC 9449 §8).") var dpopNonce: Bool?
    @Option(
        name: .customLong("grant-type"),
        help:
            "Grant type the client may use at the token endpoint (repeatable: authorization_code, refresh_token; default both; client_credentials alone for a sender; ciba for backchannel sign-in)."
    ) var grantTypes: [String] = []
    @Option(
        name: .customLong("ciba-mode"),
        help: "How a ciba client learns the user's answer: poll (default) or ping.") var cibaMode:
        BackchannelRequest.DeliveryMode?
    @Option(
        name: .customLong("ciba-notification-endpoint"),
        help: "A ping-mode ciba client's notification endpoint (https; http only on loopback).")
    var cibaNotificationEndpoint: String?
    @Flag(
        name: .customLong("require-user-code"), inversion: .prefixedNo,
        help: "A ciba client must send the user's user_code (their current TOTP code).") var requireUserCode: Bool?
    @Option(
        name: .customLong("miniapp"),
        help: "A mini app a client_credentials client sends for (repeatable; replaces the list).") var miniApps: [String] = []
    @Flag(
        name: .customLong("first-party"), inversion: .prefixedNo,
        help: "A first-party app: may sign users in natively at the authorization challenge endpoint.") var firstParty:
        Bool?
    @Option(
        name: .customLong("jwks"),
        help: "A JWK Set file of the client's public keys: it then authenticates with private_key_jwt (signed assertions), never a secret.")
    var jwksFile: String?
    @Option(
        name: .customLong("id-token-alg"),
        help: "ID-token signing algorithm: RS256 (default, as OpenID Connect requires) or ES256.") var idTokenAlgorithm:
        SigningKey.Algorithm?

    /// The patch the flags say (a `--jwks` file is read here).
    func patch() throws -> ClientPatch {
        var patch = ClientPatch()
        if let jwksFile {
            let data = try InputFile.read(jwksFile, context: try CLIContext.require())
            guard data.count <= 65_536 else { throw CLIError.invalid("--jwks: \(jwksFile) is over 64 KiB") }
            guard let set = try? JSONValue.decode(data) else { throw CLIError.invalid("--jwks: \(jwksFile) is not JSON") }
            patch.jwks = set
        }
        func list(_ values: [String]) -> [String]? { values.isEmpty ? nil : values }
        (patch.redirectURIs, patch.postLogoutRedirectURIs, patch.allowedScopes, patch.defaultScopes) =
            (list(redirectURIs), list(postLogoutRedirectURIs), list(scopes), list(defaultScopes))
        // `ciba` and `token-exchange` name their grants' URNs.
        let grants = grantTypes.map {
            $0 == "ciba" ? BackchannelRules.grantType : $0 == "token-exchange" ? TokenExchange.grantType : $0
        }
        (patch.grantTypes, patch.miniApps) = (list(grants), list(miniApps))
        patch.backchannelMode = cibaMode ?? (grants.contains(BackchannelRules.grantType) ? .poll : nil)
        (patch.backchannelNotificationEndpoint, patch.backchannelUserCodeRequired) = (cibaNotificationEndpoint, requireUserCode)
        (patch.requirePAR, patch.dpopBound, patch.dpopNonceRequired, patch.firstParty) = (requirePAR, dpop, dpopNonce, firstParty)
        (patch.accessTokenLifetimeSeconds, patch.refreshIdleLifetimeSeconds, patch.refreshAbsoluteLifetimeSeconds) =
            (accessLifetime, refreshIdle, refreshAbsolute)
        patch.idTokenSigningAlgorithm = idTokenAlgorithm
        return patch
    }

    func apply(to client: inout OAuthClient) throws {
        try patch().apply(to: &client)
    }
}

enum ClientText {
    static func lines(_ c: OAuthClient) -> [String] {
        [
            "client \(c.clientID) (\(c.confidential ? "confidential" : "public")) in tenant \(c.tenantID)",
            "  redirect URIs:        \(c.redirectURIs.joined(separator: " "))",
            "  post-logout URIs:     \(c.postLogoutRedirectURIs.joined(separator: " "))",
            "  default scopes:       \((c.defaultScopes ?? []).joined(separator: " "))",
            "  optional scopes:      \(c.allowedScopes.joined(separator: " "))",
            "  require PAR:          \(c.requirePAR)",
            "  DPoP:                 \(c.dpopBound)\(c.dpopNonceRequired == true ? " (server nonce required)" : "")",
            "  ID-token algorithm:   \(c.idTokenAlgorithm.rawValue)",
            "  first-party:          \(c.isFirstParty)\(c.isFirstParty ? " (authorization challenge endpoint)" : "")",
            "  grant types:          \((c.grantTypes ?? OAuthClient.knownGrantTypes).joined(separator: " "))",
            "  ciba:                 \(c.backchannelMode.map { "\($0.rawValue)\(c.backchannelNotificationEndpoint.map { " → " + $0 } ?? "")\(c.backchannelUserCodeRequired == true ? ", user_code required" : "")" } ?? "-")",
            "  authentication:       \(c.usesPrivateKeyJWT ? "private_key_jwt (\(c.assertionKeys.count) key(s))" : c.confidential ? "client secret" : "none (public)")",
        ] + (c.miniApps.map { ["  sends for mini apps:  \($0.joined(separator: " "))"] } ?? []) + [
            "  lifetimes (s):        access \(c.accessTokenLifetimeSeconds), refresh idle \(c.refreshIdleLifetimeSeconds), absolute \(c.refreshAbsoluteLifetimeSeconds)",
        ]
    }

    static func validate(_ c: OAuthClient) throws {
        do { try c.validate() } catch { throw CLIError.invalid("\(error)") }
    }
}

struct ClientAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Register a client (public unless --confidential; the secret is printed once).")
    @OptionGroup var tenant: TenantOption
    @Option(name: .customLong("client-id"), help: "Client id.") var clientID: String
    @Flag(help: "Confidential client: generates a secret, printed once, stored hashed.") var confidential = false
    @OptionGroup var settings: ClientSettingOptions
    @OptionGroup var global: GlobalOptions

    private struct Created: Encodable {
        var client: OAuthClient
        var clientSecret: String?
    }

    func run() async throws {
        let context = try CLIContext.require()
        var client = try settings.patch().registering(
            tenantID: tenant.tenant, clientID: clientID, confidential: confidential)
        try ClientText.validate(client)
        let secretText: String?
        if let remote = try await AdminRemote.select(global, context: context) {
            (client, secretText) = try await remote.addClient(
                tenantID: tenant.tenant, clientID: clientID, confidential: confidential, patch: try settings.patch())
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            // A client with keys (private_key_jwt) never gets a secret.
            let secret = confidential && client.jwks == nil ? ClientSecret.generate() : nil
            let (user, now) = (a.access.actor, Date())
            try await a.auth.addClients([NewClient(client, secretHash: secret?.hash)]) { stored in
                ClientTrail.draft(nil, stored, actor: .local(user: user), requestID: nil, verb: .create, time: now)
            }
            (client.revision, secretText) = (1, secret?.secret)
        }
        if global.json {
            try context.printJSON(Created(client: client, clientSecret: secretText))
        } else {
            context.print(
                "added \(client.confidential ? "confidential" : "public") client \(client.clientID) to tenant \(client.tenantID)"
            )
            if let secretText { context.print("client secret (shown once, store it now): \(secretText)") }
        }
    }
}

struct ClientListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a tenant's clients.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let clients: [OAuthClient]
        if let remote = try await AdminRemote.select(global, context: context) {
            clients = try await remote.clients(tenantID: tenant.tenant)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            clients = try await a.auth.clients(tenantID: tenant.tenant)
        }
        if global.json { try context.printJSON(clients); return }
        var table = TextTable(header: ["CLIENT ID", "TYPE", "GRANTS", "HOST-APP SCOPES", "REDIRECT URIS"])
        for c in clients {
            let grants = (c.grantTypes ?? OAuthClient.knownGrantTypes).map {
                $0 == TokenExchange.grantType ? "token-exchange" : $0
            }
            table.rows.append([
                c.clientID, c.confidential ? "confidential" : "public", grants.joined(separator: ","),
                c.hostAppScopes.isEmpty ? "-" : c.hostAppScopes.joined(separator: ","), c.redirectURIs.joined(separator: " "),
            ])
        }
        table.lines.forEach(context.print)
    }
}

struct ClientShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one client (never its secret).")
    @OptionGroup var tenant: TenantOption
    @Option(name: .customLong("client-id"), help: "Client id.") var clientID: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let client: OAuthClient
        if let remote = try await AdminRemote.select(global, context: context) {
            client = try await remote.oauthClient(tenantID: tenant.tenant, clientID: clientID)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            client = try await a.requireClient(tenant: tenant.tenant, clientID: clientID)
        }
        if global.json { try context.printJSON(client) } else { ClientText.lines(client).forEach(context.print) }
    }
}

struct ClientUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Change a client's settings (list flags replace the list).")
    @OptionGroup var tenant: TenantOption
    @Option(name: .customLong("client-id"), help: "Client id.") var clientID: String
    @OptionGroup var settings: ClientSettingOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let patch = try settings.patch()
        if let remote = try await AdminRemote.select(global, context: context) {
            var client = try await remote.oauthClient(tenantID: tenant.tenant, clientID: clientID)
            patch.apply(to: &client)
            try ClientText.validate(client)
            // At the revision read: a change made in between is refused (412), never overwritten.
            let updated = try await remote.updateClient(
                tenantID: tenant.tenant, clientID: clientID, patch: patch, revision: client.currentRevision)
            return try context.report("updated client \(clientID) of tenant \(tenant.tenant)", document: updated, json: global.json)
        }
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        var client = try await a.requireClient(tenant: tenant.tenant, clientID: clientID)
        patch.apply(to: &client)
        try ClientText.validate(client)
        let (user, now) = (a.access.actor, Date())
        let updated = try await a.auth.writeClient(
            tenantID: tenant.tenant, clientID: clientID,
            trail: { ClientTrail.draft($0, $1, actor: .local(user: user), requestID: nil, verb: .update, time: now) }
        ) { current in
            var changed = current
            patch.apply(to: &changed)
            return changed
        }
        try context.report("updated client \(clientID) of tenant \(tenant.tenant)", document: updated, json: global.json)
    }
}

struct ClientRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a client.")
    @OptionGroup var tenant: TenantOption
    @Option(name: .customLong("client-id"), help: "Client id.") var clientID: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        if let remote = try await AdminRemote.select(global, context: context) {
            try await remote.removeClient(tenantID: tenant.tenant, clientID: clientID)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            let (user, now) = (a.access.actor, Date())
            try await a.auth.writeClient(
                tenantID: tenant.tenant, clientID: clientID,
                trail: { ClientTrail.draft($0, $1, actor: .local(user: user), requestID: nil, verb: .delete, time: now) }
            ) { _ in nil }
        }
        try context.report(
            "removed client \(clientID) from tenant \(tenant.tenant)",
            document: ["removed": clientID, "tenant": tenant.tenant], json: global.json)
    }
}

/// `--id-token-alg RS256|ES256`.
extension SigningKey.Algorithm: ExpressibleByArgument {}
extension BackchannelRequest.DeliveryMode: ExpressibleByArgument {}
