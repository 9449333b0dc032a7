import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl issuer trust|list|untrust --tenant T`: external issuers whose access tokens
/// the tenant's API accepts like its own.
struct IssuerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issuer",
        abstract: "Manage the external token issuers a tenant trusts (their JWT access tokens work on the API).",
        subcommands: [IssuerTrustCommand.self, IssuerListCommand.self, IssuerUntrustCommand.self]
    )
}

struct IssuerTrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Trust an issuer's access tokens (replaces an earlier trust of the same issuer).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The issuer (`iss`, exactly; https).") var issuer: String
    @Option(help: "The audience (`aud`) its tokens must carry for this tenant.") var audience: String
    @Option(name: .customLong("subject-claim"), help: "The claim naming the user.") var subjectClaim = "sub"
    @Option(name: .customLong("jwks-uri"), help: "The key set (default: from the issuer's discovery document).")
    var jwksURI: String?
    @Option(
        name: .customLong("introspection-client-id"),
        help: "Accept the issuer's opaque tokens, checked by RFC 7662 introspection as this client.")
    var introspectionClientID: String?
    @Flag(
        name: .customLong("introspection-secret-stdin"),
        help: "Read the introspection client's secret from standard input (sealed at rest).")
    var introspectionSecretStdin = false
    @Option(
        name: .customLong("introspection-cache"),
        help: "Seconds an introspection answer is reused (never past the token's expiry; 1-3600).")
    var introspectionCache = 300
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if introspectionSecretStdin, introspectionClientID == nil {
            throw ValidationError("--introspection-secret-stdin needs --introspection-client-id")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let secret =
            introspectionSecretStdin
            ? SecretValue(try PasswordInput.line(context, what: "introspection secret", lengths: 1...1024)) : nil
        let introspection = introspectionClientID.map {
            TrustedIssuer.Introspection(clientID: $0, clientSecret: secret, cacheSeconds: introspectionCache)
        }
        let trust = TrustedIssuer(
            tenantID: tenant.tenant, issuer: issuer, audience: audience, subjectClaim: subjectClaim, jwksURI: jwksURI,
            introspection: introspection)
        do { try trust.validate() } catch { throw CLIError.invalid("\(error)") }
        let document: TrustedIssuerDocument
        if let remote = try await AdminRemote.select(global, context: context) {
            document = try await remote.trustIssuer(
                tenantID: tenant.tenant,
                .init(
                    issuer: issuer, audience: audience, subjectClaim: subjectClaim, jwksURI: jwksURI,
                    introspectionClientID: introspectionClientID, introspectionSecret: secret?.plaintext,
                    introspectionCacheSeconds: introspectionClientID == nil ? nil : introspectionCache))
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            let (user, now) = (a.access.actor, Date())
            try await a.auth.trustIssuer(trust) { old, new in
                TrustedIssuerTrail.draft(old, new, actor: .local(user: user), requestID: nil, time: now)
            }
            document = TrustedIssuerDocument(trust)
        }
        try context.report(
            "tenant \(tenant.tenant) trusts access tokens of \(issuer) for audience \(audience)", document: document,
            json: global.json)
    }
}

struct IssuerListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a tenant's trusted issuers.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let issuers: [TrustedIssuerDocument]
        if let remote = try await AdminRemote.select(global, context: context) {
            issuers = try await remote.trustedIssuers(tenantID: tenant.tenant)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            issuers = try await a.auth.trustedIssuers(tenantID: tenant.tenant).map(TrustedIssuerDocument.init)
        }
        if global.json { try context.printJSON(issuers); return }
        var table = TextTable(header: ["ISSUER", "AUDIENCE", "SUBJECT CLAIM", "JWKS", "OPAQUE TOKENS"])
        for i in issuers {
            let opaque =
                i.introspectionClientID.map { "introspected as \($0), cached ≤ \(i.introspectionCacheSeconds ?? 300) s" }
                ?? "refused"
            table.rows.append([i.issuer, i.audience, i.subjectClaim, i.jwksURI ?? "(discovery)", opaque])
        }
        table.lines.forEach(context.print)
    }
}

struct IssuerUntrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "untrust", abstract: "Stop trusting an issuer (every replica within 5 seconds).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The issuer.") var issuer: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        if let remote = try await AdminRemote.select(global, context: context) {
            try await remote.untrustIssuer(tenantID: tenant.tenant, issuer: issuer)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            let (user, now) = (a.access.actor, Date())
            try await a.auth.untrustIssuer(tenantID: tenant.tenant, issuer: issuer) { old in
                TrustedIssuerTrail.draft(old, nil, actor: .local(user: user), requestID: nil, time: now)
            }
        }
        try context.report(
            "tenant \(tenant.tenant) no longer trusts \(issuer)", document: ["untrusted": issuer], json: global.json)
    }
}
