import ArgumentParser
import GatewayCore

/// The `<id>` argument of single-tenant commands, checked before anything is opened.
struct TenantIDArgument: ParsableArguments {
    @Argument(help: "Tenant id: 2-63 characters of a-z, 0-9 and '-'.")
    var id: String

    func validate() throws {
        do {
            try TenantID.validate(id)
        } catch {
            throw ValidationError(error.flagMessage)
        }
    }
}
