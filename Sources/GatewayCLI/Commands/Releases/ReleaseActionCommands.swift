import AdminAPI
import ArgumentParser
import GatewayCore

/// `gatewayctl release pause --tenant T MINIAPP`
struct ReleasePauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Freeze the candidate's share where it is now; steps wait.")
    @OptionGroup var target: ReleaseTargetOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ReleaseActionRun.run(target, global, "paused", remote: .init(action: .pause)) { try await $0.pause($1) }
    }
}

/// `gatewayctl release resume --tenant T MINIAPP`
struct ReleaseResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Let a paused or halted candidate go on from its share.")
    @OptionGroup var target: ReleaseTargetOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ReleaseActionRun.run(target, global, "resumed", remote: .init(action: .resume)) {
            try await $0.resume($1)
        }
    }
}

/// `gatewayctl release promote --tenant T MINIAPP`
struct ReleasePromoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote", abstract: "Make the candidate the stable version for everyone.")
    @OptionGroup var target: ReleaseTargetOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ReleaseActionRun.run(target, global, "promoted", remote: .init(action: .promote)) {
            try await $0.promote($1)
        }
    }
}

/// `gatewayctl release rollback --tenant T MINIAPP --to VERSION`
struct ReleaseRollbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Give everyone an earlier version; the candidate is dropped.")
    @OptionGroup var target: ReleaseTargetOptions
    @Option(help: ArgumentHelp("The version everyone gets.", valueName: "version")) var to: String
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if !ReleasePolicyRules.isVersion(to) { throw ValidationError("--to must be a version id") }
    }

    func run() async throws {
        let version = to
        try await ReleaseActionRun.run(
            target, global, "rolled back", remote: .init(action: .rollback, to: version), checking: [version]
        ) {
            try await $0.rollback($1, to: version)
        }
    }
}

/// `gatewayctl release withdraw --tenant T MINIAPP --version V [--use-instead W]`
struct ReleaseWithdrawCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "withdraw",
        abstract: "Take a version back: never offered again, its manifest and bundle answer 410.")
    @OptionGroup var target: ReleaseTargetOptions
    @Option(help: ArgumentHelp("The version to take back.", valueName: "version")) var version: String
    @Option(help: ArgumentHelp("What its users get instead (default: the platform's latest).", valueName: "version"))
    var useInstead: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if !ReleasePolicyRules.isVersion(version) { throw ValidationError("--version must be a version id") }
        if let useInstead, !ReleasePolicyRules.isVersion(useInstead) {
            throw ValidationError("--use-instead must be a version id")
        }
    }

    func run() async throws {
        let (version, useInstead) = (version, useInstead)
        try await ReleaseActionRun.run(
            target, global, "withdrew \(version) of",
            remote: .init(action: .withdraw, version: version, useInstead: useInstead),
            checking: [version] + (useInstead.map { [$0] } ?? [])
        ) {
            try await $0.withdraw($1, version: version, useInstead: useInstead)
        }
    }
}

/// What the action commands share: over the admin API when one is selected (with an
/// Idempotency-Key, so a retried call acts once); else open, check new versions with the
/// platform, act, report.
enum ReleaseActionRun {
    static func run(
        _ options: ReleaseTargetOptions, _ global: GlobalOptions, _ verb: String,
        remote request: Components.Schemas.ReleaseActionRequest, checking versions: [String] = [],
        _ action: (ReleaseService, ReleaseService.Target) async throws -> ReleasePolicy
    ) async throws {
        let context = try CLIContext.require()
        if let remote = try await AdminRemote.select(global, context: context) {
            var request = request
            request.reason = options.reason
            let view = try await remote.releaseAction(
                tenantID: options.tenant.tenant, miniAppID: options.miniApp, request)
            if global.json { return try context.printJSON(view) }
            return context.print("\(verb) \(view.miniAppId) of tenant \(view.tenant) (revision \(view.revision))")
        }
        let access = try await ReleaseAccess(options, global: global, context: context)
        try await PlatformVersionCheck.check(
            versions, miniAppID: options.miniApp, tenant: access.state.tenant,
            policy: try await access.store.policy(tenantID: options.tenant.tenant, miniAppID: options.miniApp),
            context: context)
        let stored = try await UserStateAccess.mapErrors { try await action(access.service, access.target) }
        try ReleaseAccess.report(stored, verb, global: global, context: context)
    }
}
