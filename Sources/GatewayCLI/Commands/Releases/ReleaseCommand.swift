import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl release ...`
struct ReleaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Staged releases of mini-app versions: cohorts, rollout, rollback, withdraw.",
        discussion: """
            A release policy per tenant and mini app decides which version each signed-in \
            user gets: the stable version, or a candidate for a sticky share of users (a hash \
            of tenant, mini app, candidate and user), its allow list and its segments. Running \
            gateways apply a change within a second. Versions are the platform's version ids.
            """,
        subcommands: [
            ReleaseSetCommand.self, ReleaseShowCommand.self, ReleaseListCommand.self, ReleasePauseCommand.self,
            ReleaseResumeCommand.self, ReleasePromoteCommand.self, ReleaseRollbackCommand.self,
            ReleaseWithdrawCommand.self, ReleaseHistoryCommand.self,
        ]
    )
}

/// The mini app a release command acts on: `--tenant T MINIAPP`, and why (`--reason`).
struct ReleaseTargetOptions: ParsableArguments {
    @OptionGroup var tenant: TenantOption
    @Argument(help: ArgumentHelp("The mini app id.", valueName: "miniapp")) var miniApp: String
    @Option(help: "Why, kept in the history.") var reason: String?

    func validate() throws {
        if !ReleasePolicyRules.isIdentifier(miniApp) {
            throw ValidationError("the mini app id must be 1-128 of letters, digits, '.', '_' and '-'")
        }
        if let reason { try checkText(reason, flag: "--reason", max: 500) }
    }
}

/// The opened database, the tenant (exit 2 when it does not exist) and the release service.
struct ReleaseAccess {
    let state: UserStateAccess
    let service: ReleaseService
    let target: ReleaseService.Target

    var store: any ReleasePolicyStore { state.access.stores.releases }

    /// - Parameter verb: how the audit trail names a change made through ``target``
    ///   (`update` for `release set`, `act` for the actions), recorded as `local:<user>`.
    init(
        _ options: ReleaseTargetOptions, global: GlobalOptions, context: CLIContext, verb: AdminVerb = .act
    ) async throws {
        state = try await UserStateAccess(global, tenantID: options.tenant.tenant, context: context)
        service = ReleaseService(store: state.access.stores.releases)
        target = .init(
            tenantID: options.tenant.tenant, miniAppID: options.miniApp, actor: state.access.actor,
            reason: options.reason,
            audit: AdminService.releaseAudit(
                actor: .local(user: state.access.actor), requestID: nil, verb: verb, tenantID: options.tenant.tenant,
                miniAppID: options.miniApp, time: Date()))
    }

    /// Prints the stored policy (`--json`: the whole document) after `verb`.
    static func report(_ policy: ReleasePolicy, _ verb: String, global: GlobalOptions, context: CLIContext) throws {
        if global.json {
            try context.printJSON(ReleasePolicyView(policy))
        } else {
            context.print("\(verb) \(policy.miniAppID) of tenant \(policy.tenantID) (revision \(policy.revision)): \(policy.summary)")
        }
    }
}
