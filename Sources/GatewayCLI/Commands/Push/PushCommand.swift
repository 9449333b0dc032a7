import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl push ...`
struct PushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Push notifications: provider credentials (sealed) and users' devices (tokens are never shown).",
        subcommands: [PushDevicesCommand.self, PushAPNsCommand.self, PushFCMCommand.self, PushSendCommand.self]
    )
}

/// `gatewayctl push devices --tenant T --user SUBJECT`
struct PushDevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "A user's push devices, newest registration first (tokens masked).")

    @OptionGroup var tenant: TenantOption
    @Option(help: "The user (token subject).") var user: String
    @OptionGroup var global: GlobalOptions

    /// A device as operators see it: the token's last four characters only.
    struct DeviceView: Encodable {
        var id: String
        var provider: String
        var platform: String
        var tokenEnding: String
        var locale: String?
        var appVersion: String?
        var apnsEnvironment: String?
        var createdAt: Date
        var updatedAt: Date

        init(_ device: PushDevice) {
            id = device.id
            provider = device.provider.rawValue
            platform = device.platform.rawValue
            tokenEnding = "…" + device.token.suffix(4)
            locale = device.locale
            appVersion = device.appVersion
            apnsEnvironment = device.apnsEnvironment?.rawValue
            createdAt = device.createdAt
            updatedAt = device.updatedAt
        }
    }

    func validate() throws {
        try checkText(user, flag: "--user")
    }

    func run() async throws {
        let context = try CLIContext.require()
        let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
        let devices = try await state.access.stores.devices.devices(tenantID: tenant.tenant, userID: user)
            .map(DeviceView.init)
        if global.json {
            try context.printJSON(devices)
            return
        }
        var table = TextTable(header: ["ID", "PROVIDER", "PLATFORM", "TOKEN", "LOCALE", "APP", "REGISTERED"])
        table.rows = devices.map {
            [
                $0.id, $0.provider + ($0.apnsEnvironment.map { " (\($0))" } ?? ""), $0.platform, $0.tokenEnding,
                $0.locale ?? "-", $0.appVersion ?? "-", TenantText.time($0.updatedAt),
            ]
        }
        table.lines.forEach(context.print)
    }
}
