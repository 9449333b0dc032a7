import ArgumentParser
import GatewayCore

/// `--tenant T` of the commands that act inside one tenant (keys, clients, users, storage,
/// l10n, analytics, domains), checked before anything is opened.
struct TenantOption: ParsableArguments {
    @Option(help: ArgumentHelp("Tenant id.", valueName: "id"))
    var tenant: String

    func validate() throws {
        do {
            try TenantID.validate(tenant)
        } catch {
            throw ValidationError(error.flagMessage.replacingOccurrences(of: "tenant id", with: "--tenant"))
        }
    }
}
