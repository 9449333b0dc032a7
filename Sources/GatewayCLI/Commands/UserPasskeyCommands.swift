import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl user passkeys list|remove`: an operator's view of a user's passkeys (issue 64),
/// over the admin API or on the database; both paths do what
/// ``PasskeyStore/removePasskey(of:passkeyID:actor:requestID:time:)`` does.
struct UserPasskeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys", abstract: "See and remove a user's passkeys.",
        subcommands: [UserPasskeysListCommand.self, UserPasskeysRemoveCommand.self])
}

/// `gatewayctl user passkeys list --tenant T --username U`
struct UserPasskeysListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List a user's passkeys, oldest first (never their keys).")
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username.") var username: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let passkeys: [PasskeyDocument]
        if let remote = try await AdminRemote.select(global, context: context) {
            passkeys = try await remote.userPasskeys(tenantID: tenant.tenant, username: username)
        } else {
            let access = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            passkeys = try await access.auth.passkeyDocuments(
                of: try await access.requireUser(tenant: tenant.tenant, username: username))
        }
        if global.json {
            try context.printJSON(passkeys)
            return
        }
        var table = TextTable(header: ["ID", "NAME", "CREATED", "LAST USED", "SYNCED"])
        table.rows = passkeys.map {
            [
                $0.id, $0.name, $0.createdAt.formatted(.iso8601), $0.lastUsedAt?.formatted(.iso8601) ?? "-",
                $0.backedUp ? "yes" : "no",
            ]
        }
        table.lines.forEach(context.print)
    }
}

/// `gatewayctl user passkeys remove --tenant T --username U --id ID`
struct UserPasskeysRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove one of a user's passkeys (a lost phone); recorded in the audit trail.",
        discussion: """
            Unlike My account, this may remove the user's last passkey: the user then recovers \
            the account or is given a password (`user passwd`).
            """)
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username.") var username: String
    @Option(help: "The passkey's ID (base64url), as `user passkeys list` prints it.") var id: String
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var removed: String
        var username: String
    }

    func validate() throws {
        guard (1 ... 1_400).contains(id.utf8.count), Base64URL.decode(id) != nil else {
            throw ValidationError("--id must be a passkey ID (base64url), as `user passkeys list` prints it")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        if let remote = try await AdminRemote.select(global, context: context) {
            try await remote.removeUserPasskey(tenantID: tenant.tenant, username: username, passkeyID: id)
        } else {
            let access = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            let user = try await access.requireUser(tenant: tenant.tenant, username: username)
            let removed = try await access.auth.removePasskey(
                of: user, passkeyID: id, actor: .local(user: access.access.actor), requestID: nil, time: Date())
            if removed == nil { throw CLIError.invalid("user \(username) holds no passkey \(id)") }
        }
        try context.report(
            "removed passkey \(id) of user \(username)", document: Report(removed: id, username: username),
            json: global.json)
    }
}
