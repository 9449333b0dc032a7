import GatewayCore

/// The `--flag name=true|false` and `--unset-flag name` values of one command, parsed.
struct FeatureFlagChanges {
    /// Flags to set, by name.
    var values: [String: Bool] = [:]
    /// Flags to remove.
    var removals: Set<String> = []

    /// Parses the flag values; a malformed value, a bad name or a name both set and unset
    /// is a one-line ``CLIError/invalid(_:)``.
    init(set assignments: [String], unset names: [String]) throws {
        for assignment in assignments {
            let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let value = Bool(String(parts[1])) else {
                throw CLIError.invalid(
                    "--flag must be name=true or name=false, got \(TenantValidationError.quote(assignment))")
            }
            let name = String(parts[0])
            try Self.checkName(name, flag: "--flag")
            if let earlier = values[name], earlier != value {
                throw CLIError.invalid("--flag sets \(TenantValidationError.quote(name)) to both true and false")
            }
            values[name] = value
        }
        for name in names {
            try Self.checkName(name, flag: "--unset-flag")
            guard values[name] == nil else {
                throw CLIError.invalid("--flag and --unset-flag both name \(TenantValidationError.quote(name))")
            }
            removals.insert(name)
        }
    }

    /// Applies the changes to `flags`; unsetting an absent flag changes nothing.
    func apply(to flags: inout [String: Bool]) {
        for name in removals { flags[name] = nil }
        flags.merge(values) { _, new in new }
    }

    private static func checkName(_ name: String, flag: String) throws {
        do {
            try TenantValidator.validateFeatureFlagName(name)
        } catch {
            throw CLIError.invalid("\(flag) \(error.problem)")
        }
    }
}
