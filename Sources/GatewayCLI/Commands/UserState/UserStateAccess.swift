import ArgumentParser
import GatewayCore

/// Opens the database and checks the tenant exists (exit 2 when it does not).
struct UserStateAccess {
    let access: StoreAccess
    let tenant: Tenant

    init(_ global: GlobalOptions, tenantID: String, context: CLIContext) async throws {
        access = try await StoreAccess.open(global, context: context)
        guard let tenant = try await access.store.tenant(id: tenantID) else {
            throw CLIError.invalid("tenant '\(tenantID)' not found")
        }
        self.tenant = tenant
    }

    /// Runs `body`, turning the domain's input errors into exit-2 errors.
    static func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SecureStorageError {
            throw CLIError.invalid(error.description)
        } catch let error as LocalizationError {
            throw CLIError.invalid(error.description)
        } catch let error as TenantDomainError {
            throw CLIError.invalid(error.description)
        } catch let error as ReleasePolicyError {
            // A lost race is no input error: the operator's change was valid (exit 1).
            if case .conflict = error { throw CLIError.failure(error.description) }
            throw CLIError.invalid(error.description)
        }
    }
}

/// A required, non-empty, single-line text option value.
func checkText(_ value: String, flag: String, max: Int = 256) throws {
    if value.isEmpty || value.count > max || value.contains(where: { $0.isNewline || $0 == "\0" }) {
        throw ValidationError("\(flag) must be 1-\(max) characters on one line")
    }
}
