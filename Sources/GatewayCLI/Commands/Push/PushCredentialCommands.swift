import AdminAPI
import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl push apns set|show|remove`
struct PushAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apns", abstract: "A tenant's APNs signing key (token-based authentication).",
        subcommands: [Set.self, PushCredentialShowCommand<APNsProvider>.self,
                      PushCredentialRemoveCommand<APNsProvider>.self])

    /// `gatewayctl push apns set --tenant T --key-id K --team-id T --topic com.example.app --key-stdin`
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the APNs key; the .p8 file is read from standard input.")
        @OptionGroup var tenant: TenantOption
        @Option(name: .customLong("key-id"), help: "The key's 10-character id.") var keyID: String
        @Option(name: .customLong("team-id"), help: "The team's 10-character id.") var teamID: String
        @Option(help: "The app's bundle id (apns-topic).") var topic: String
        @Option(help: "Endpoint of devices that do not say: sandbox or production.")
        var environment: APNsEnvironment = .production
        @Flag(name: .customLong("key-stdin"), help: "Read the .p8 key from standard input (required).")
        var keyStdin = false
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard keyStdin else { throw ValidationError("--key-stdin is required (keys are never taken from arguments)") }
        }

        func run() async throws {
            let context = try CLIContext.require()
            let pem = try PushCredentialInput.read(context, what: "the .p8 key")
            let credentials = try PushCredentialInput.checked {
                try APNsCredentials(
                    keyID: keyID, teamID: teamID, topic: topic, environment: environment,
                    privateKey: String(decoding: pem, as: UTF8.self))
            }
            let wire = Components.Schemas.PushCredentialSet(
                keyID: keyID, teamID: teamID, topic: topic, environment: .init(rawValue: environment.rawValue),
                privateKey: String(decoding: pem, as: UTF8.self))
            try await PushCredentialInput.store(
                .apns(credentials), wire: wire, tenantID: tenant.tenant, global: global, context: context)
        }
    }
}

/// `gatewayctl push fcm set|show|remove`
struct PushFCMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm", abstract: "A tenant's Firebase service account (FCM HTTP v1).",
        subcommands: [Set.self, PushCredentialShowCommand<FCMProvider>.self,
                      PushCredentialRemoveCommand<FCMProvider>.self])

    /// `gatewayctl push fcm set --tenant T --service-account-stdin`
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the service account; its JSON file is read from standard input.")
        @OptionGroup var tenant: TenantOption
        @Flag(name: .customLong("service-account-stdin"), help: "Read the service account JSON from standard input.")
        var serviceAccountStdin = false
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard serviceAccountStdin else {
                throw ValidationError("--service-account-stdin is required (keys are never taken from arguments)")
            }
        }

        func run() async throws {
            let context = try CLIContext.require()
            let json = try PushCredentialInput.read(context, what: "the service account")
            let credentials = try PushCredentialInput.checked { try FCMCredentials(serviceAccountJSON: json) }
            let wire = Components.Schemas.PushCredentialSet(serviceAccountJSON: String(decoding: json, as: UTF8.self))
            try await PushCredentialInput.store(
                .fcm(credentials), wire: wire, tenantID: tenant.tenant, global: global, context: context)
        }
    }
}

/// Names one provider for the shared show/remove commands.
protocol PushProviderName {
    static var provider: PushProvider { get }
}

enum APNsProvider: PushProviderName {
    static let provider = PushProvider.apns
}

enum FCMProvider: PushProviderName {
    static let provider = PushProvider.fcm
}

/// `gatewayctl push apns|fcm show --tenant T [--reveal]`
struct PushCredentialShowCommand<Provider: PushProviderName>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "show", abstract: "Show the credentials (the key masked unless --reveal).")
    }
    @OptionGroup var tenant: TenantOption
    @Flag(help: "Print the private key itself.") var reveal = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let view: PushCredentialDocument
        if let remote = try await AdminRemote.select(global, context: context) {
            guard !reveal else { throw CLIError.invalid("--reveal needs --local: the admin API never answers a key") }
            view = try await remote.pushCredential(tenantID: tenant.tenant, provider: Provider.provider)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            guard
                let credentials = try await state.access.stores.pushCredentials.credentials(
                    tenantID: tenant.tenant, provider: Provider.provider)
            else {
                throw CLIError.failure("tenant \(tenant.tenant) has no \(Provider.provider.rawValue) credentials")
            }
            view = PushCredentialDocument(credentials, reveal: reveal)
        }
        if global.json {
            try context.printJSON(view)
            return
        }
        view.lines.forEach(context.print)
    }
}

/// `gatewayctl push apns|fcm remove --tenant T`
struct PushCredentialRemoveCommand<Provider: PushProviderName>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "remove", abstract: "Remove the credentials; deliveries through the provider then fail.")
    }
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let provider = Provider.provider
        if let remote = try await AdminRemote.select(global, context: context) {
            try await remote.removePushCredential(tenantID: tenant.tenant, provider: provider)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let (tenantID, user, now) = (tenant.tenant, state.access.actor, Date())
            guard
                try await state.access.stores.pushCredentials.removeCredentials(tenantID: tenantID, provider: provider, trail: { old in
                    PushCredentialTrail.draft(
                        tenantID: tenantID, provider: provider, old, nil, actor: .local(user: user), requestID: nil, time: now)
                })
            else {
                throw CLIError.failure("tenant \(tenant.tenant) has no \(provider.rawValue) credentials")
            }
        }
        try context.report(
            "removed the \(provider.rawValue) credentials of tenant \(tenant.tenant)",
            document: ["removed": provider.rawValue, "tenant": tenant.tenant], json: global.json)
    }
}

/// Reading and storing provider credentials.
enum PushCredentialInput {
    /// Standard input, at most 16 KiB, not empty.
    static func read(_ context: CLIContext, what: String) throws -> Data {
        let data = try context.standardInput()
        guard !data.isEmpty, data.count <= 16_384 else {
            throw CLIError.invalid("\(what) on standard input must be 1 byte to 16 KiB")
        }
        return data
    }

    /// Runs `make`, turning a refusal into an exit-2 error.
    static func checked<T>(_ make: () throws -> T) throws -> T {
        do {
            return try make()
        } catch let error as PushCredentialError {
            throw CLIError.invalid(error.description)
        }
    }

    /// Stores `credentials`: over the admin API when one is selected, else on the database
    /// with the audit record of a local change. `wire` is the API's body for them.
    static func store(
        _ credentials: PushCredentials, wire: Components.Schemas.PushCredentialSet, tenantID: String, global: GlobalOptions,
        context: CLIContext
    ) async throws {
        let view: PushCredentialDocument
        if let remote = try await AdminRemote.select(global, context: context) {
            view = try await remote.setPushCredential(tenantID: tenantID, provider: credentials.provider, wire)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenantID, context: context)
            let (user, now) = (state.access.actor, Date())
            try await state.access.stores.pushCredentials.setCredentials(credentials, tenantID: tenantID, now: now) { old in
                PushCredentialTrail.draft(
                    tenantID: tenantID, provider: credentials.provider, old, credentials, actor: .local(user: user),
                    requestID: nil, time: now)
            }
            view = PushCredentialDocument(credentials)
        }
        try context.report(
            "set the \(credentials.provider.rawValue) credentials of tenant \(tenantID) (sealed)", document: view,
            json: global.json)
    }
}

extension APNsEnvironment: ExpressibleByArgument {}
