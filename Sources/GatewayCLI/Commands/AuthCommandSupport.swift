import ArgumentParser
import Foundation
import GatewayCore

/// Opens the tenant and auth stores and checks the tenant exists.
struct AuthAccess {
    let access: StoreAccess
    let auth: any AuthStore

    init(_ global: GlobalOptions, tenant: String, context: CLIContext) async throws {
        access = try await StoreAccess.open(global, context: context)
        auth = access.stores.auth
        _ = try await TenantCommandSupport.require(tenant, in: access.store)
    }

    /// The client `clientID` of `tenant`, or an exit-2 error naming both.
    func requireUser(tenant: String, username: String) async throws -> LocalUser {
        guard let user = try await auth.user(tenantID: tenant, username: username) else {
            throw CLIError.invalid("no user \(username) in tenant \(tenant)")
        }
        return user
    }

    func requireClient(tenant: String, clientID: String) async throws -> OAuthClient {
        guard let client = try await auth.client(tenantID: tenant, clientID: clientID) else {
            throw CLIError.invalid("no client \(clientID) in tenant \(tenant)")
        }
        return client
    }
}
