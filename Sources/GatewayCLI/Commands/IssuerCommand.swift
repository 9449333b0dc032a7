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
    static let configuration = CommandConfiguration(commandName: "trust", abstract: "Trust an issuer's access tokens (replaces an earlier trust of the same issuer).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The issuer (`iss`, exactly; https).") var issuer: String
    @Option(help: "The audience (`aud`) its tokens must carry for this tenant.") var audience: String
    @Option(name: .customLong("subject-claim"), help: "The claim naming the user.") var subjectClaim = "sub"
    @Option(name: .customLong("jwks-uri"), help: "The key set (default: from the issuer's discovery document).") var jwksURI: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let trust = TrustedIssuer(tenantID: tenant.tenant, issuer: issuer, audience: audience, subjectClaim: subjectClaim, jwksURI: jwksURI)
        do { try trust.validate() } catch { throw CLIError.invalid("\(error)") }
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        try await a.auth.trustIssuer(trust)
        if global.json { try context.printJSON(trust) } else { context.print("tenant \(tenant.tenant) trusts access tokens of \(issuer) for audience \(audience)") }
    }
}

struct IssuerListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a tenant's trusted issuers.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let issuers = try await a.auth.trustedIssuers(tenantID: tenant.tenant)
        if global.json { try context.printJSON(issuers); return }
        var table = TextTable(header: ["ISSUER", "AUDIENCE", "SUBJECT CLAIM", "JWKS"])
        for i in issuers { table.rows.append([i.issuer, i.audience, i.subjectClaim, i.jwksURI ?? "(discovery)"]) }
        table.lines.forEach(context.print)
    }
}

struct IssuerUntrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "untrust", abstract: "Stop trusting an issuer (every replica within 5 seconds).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The issuer.") var issuer: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        try await a.auth.untrustIssuer(tenantID: tenant.tenant, issuer: issuer)
        if global.json { try context.printJSON(["untrusted": issuer]) } else { context.print("tenant \(tenant.tenant) no longer trusts \(issuer)") }
    }
}
