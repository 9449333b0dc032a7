import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl user link|unlink|links`: which upstream identities (issuer + subject) sign in
/// as which local user.
struct UserLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Link an upstream identity (issuer + subject) to a local user.")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The local user.") var username: String
    @Option(help: "The upstream issuer.") var issuer: String
    @Option(help: "The user's subject (`sub`) at that issuer.") var subject: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let user = try await a.requireUser(tenant: tenant.tenant, username: username)
        guard (1...255).contains(subject.count) else { throw CLIError.invalid("--subject must be 1-255 characters") }
        let link = IdentityLink(
            tenantID: tenant.tenant, issuer: issuer, externalSubject: subject, subject: user.subject)
        try await a.auth.addIdentityLink(link)
        try context.report("linked \(issuer) subject \(subject) to user \(username)", document: link, json: global.json)
    }
}

struct UserUnlinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlink",
        abstract: "Remove the link of an upstream identity (its next sign-in creates a new local user).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The upstream issuer.") var issuer: String
    @Option(help: "The user's subject (`sub`) at that issuer.") var subject: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        try await a.auth.removeIdentityLink(tenantID: tenant.tenant, issuer: issuer, externalSubject: subject)
        try context.report("unlinked \(issuer) subject \(subject)", document: ["unlinked": subject], json: global.json)
    }
}

struct UserLinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links", abstract: "List the upstream identities linked to a local user.")
    @OptionGroup var tenant: TenantOption
    @Option(help: "The local user.") var username: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let user = try await a.requireUser(tenant: tenant.tenant, username: username)
        let links = try await a.auth.identityLinks(tenantID: tenant.tenant, subject: user.subject)
        if global.json { try context.printJSON(links); return }
        var table = TextTable(header: ["ISSUER", "SUBJECT", "LINKED"])
        for l in links { table.rows.append([l.issuer, l.externalSubject, l.createdAt.formatted(.iso8601)]) }
        table.lines.forEach(context.print)
    }
}
