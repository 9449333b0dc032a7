import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl courier ...`
struct CourierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "The courier: codes sent to people by e-mail and SMS (never their text).",
        subcommands: [CourierMessagesCommand.self]
    )
}

/// `gatewayctl courier messages --tenant T [--state failed] [--limit N]`
struct CourierMessagesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "messages",
        abstract: "The tenant's courier messages, newest first: channel, purpose, masked recipient, state, attempts.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "Only messages in this state: pending, sent, failed (the dead letter), expired.")
    var state: String?
    @Option(help: "At most this many (1-1000).") var limit = 50
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let state, CourierState(rawValue: state) == nil {
            throw ValidationError("--state must be pending, sent, failed or expired, got \"\(state.prefix(40))\"")
        }
        guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1-1000, got \(limit)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let wanted = state.flatMap(CourierState.init(rawValue:))
        let messages: [CourierMessageDocument]
        if let remote = try await AdminRemote.select(global, context: context) {
            messages = try await remote.courierMessages(tenantID: tenant.tenant, state: wanted, limit: limit)
        } else {
            let access = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            messages = try await access.access.stores.courier.messages(
                tenantID: tenant.tenant, state: wanted, before: nil, limit: limit
            ).map(CourierMessageDocument.init)
        }
        if global.json {
            try context.printJSON(messages)
            return
        }
        var table = TextTable(header: ["ID", "CHANNEL", "PURPOSE", "RECIPIENT", "STATE", "ATTEMPTS", "CREATED", "LAST ERROR"])
        table.rows = messages.map {
            [$0.id, $0.channel, $0.purpose, $0.recipient, $0.state, String($0.attempts), TenantText.time($0.createdAt),
             $0.lastError ?? ""]
        }
        table.lines.forEach(context.print)
        context.print("\(messages.count) message(s)")
    }
}
