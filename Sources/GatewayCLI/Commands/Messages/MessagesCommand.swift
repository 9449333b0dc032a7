import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl messages ...`
struct MessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "Messages between users: a user's inbox size, a tenant's messages purged.",
        subcommands: [MessagesInboxCommand.self, MessagesPurgeCommand.self]
    )
}

/// `gatewayctl messages inbox --tenant T --user SUBJECT`
struct MessagesInboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox", abstract: "How many unexpired messages a user's inbox holds, and how many are unread.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "The user (token subject).") var user: String
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        try checkText(user, flag: "--user")
    }

    func run() async throws {
        let context = try CLIContext.require()
        let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
        let size = try await state.access.stores.messaging.inboxSize(
            tenantID: tenant.tenant, userID: user, now: Date())
        try context.report(
            "inbox of \(user) in tenant \(tenant.tenant): \(size.total) message(s), \(size.unread) unread",
            document: size, json: global.json)
    }
}

/// `gatewayctl messages purge --tenant T --yes`
struct MessagesPurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Delete every message in the tenant's inboxes (requires --yes; contacts and blocks stay).")

    @OptionGroup var tenant: TenantOption
    @Flag(help: "Confirm the purge (it cannot be undone).") var yes = false
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var tenant: String
        var deletedMessages: Int
    }

    func validate() throws {
        guard yes else { throw ValidationError("refusing to purge messages without --yes") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
        let deleted = try await state.access.stores.messaging.purgeMessages(tenantID: tenant.tenant)
        try context.report(
            "purged \(deleted) message(s) of tenant \(tenant.tenant)",
            document: Report(tenant: tenant.tenant, deletedMessages: deleted), json: global.json)
    }
}
