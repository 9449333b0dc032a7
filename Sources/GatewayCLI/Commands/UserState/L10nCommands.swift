import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl l10n ...`
struct L10nCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "l10n",
        abstract: "Tenant overrides of the mini-app SDK texts, per locale.",
        subcommands: [
            L10nSetCommand.self, L10nUnsetCommand.self, L10nListCommand.self, L10nImportCommand.self,
            L10nDefaultCommand.self,
        ]
    )
}

/// `--tenant T --locale L`, both checked before anything is opened.
struct L10nTarget: ParsableArguments {
    @OptionGroup var tenant: TenantOption
    @Option(help: "BCP 47 locale, e.g. ja or ja-JP.") var locale: String

    func validate() throws {
        guard LocaleTag.normalize(locale) != nil else {
            throw ValidationError(LocalizationError.invalidLocale(locale).description)
        }
    }
}

/// Writes overrides and reports them (shared by set and import).
enum L10nWriter {
    static func write(_ entries: [String: String], target: L10nTarget, global: GlobalOptions, verb: String) async throws
    {
        for (key, value) in entries {
            do {
                try LocalizationError.check(key: key)
                try LocalizationError.check(value: value, key: key)
            } catch { throw CLIError.invalid(error.description) }
        }
        let context = try CLIContext.require()
        let tenantID = target.tenant.tenant
        let report: LocalizationTextsReport
        if let remote = try await AdminRemote.select(global, context: context) {
            report = try await remote.setTexts(tenantID: tenantID, locale: target.locale, entries)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenantID, context: context)
            let store = state.access.stores.localization
            let trail = LocalizationTrail.texts(tenantID: tenantID, actor: .local(user: state.access.actor), requestID: nil, time: Date())
            let result = try await UserStateAccess.mapErrors {
                try await store.set(entries, tenantID: tenantID, locale: target.locale, trail: trail)
            }
            report = LocalizationTextsReport(
                tenant: tenantID, locale: LocaleTag.normalize(target.locale) ?? target.locale, keys: entries.keys.sorted(),
                version: result.version)
        }
        if global.json {
            try context.printJSON(report)
        } else {
            context.print(
                "\(verb) \(entries.count) text(s) for \(report.locale) in tenant \(tenantID) (version \(report.version))")
        }
    }
}

/// `gatewayctl l10n set --tenant T --locale ja key=value ...`
struct L10nSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set", abstract: "Set texts: key=value arguments.")

    @OptionGroup var target: L10nTarget
    @Argument(help: "key=value pairs.") var pairs: [String]
    @OptionGroup var global: GlobalOptions

    func entries() throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "=") else {
                throw ValidationError("expected key=value, got \"\(pair.prefix(60))\"")
            }
            let key = String(pair[..<equals])
            do { try LocalizationError.check(key: key) } catch { throw ValidationError(error.description) }
            guard result.updateValue(String(pair[pair.index(after: equals)...]), forKey: key) == nil else {
                throw ValidationError("key \(key) is given more than once")
            }
        }
        return result
    }

    func validate() throws {
        guard !pairs.isEmpty else { throw ValidationError("give at least one key=value") }
        _ = try entries()
    }

    func run() async throws {
        try await L10nWriter.write(try entries(), target: target, global: global, verb: "set")
    }
}

/// `gatewayctl l10n unset --tenant T --locale ja key ...`
struct L10nUnsetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset", abstract: "Remove texts (back to the fallback).")

    @OptionGroup var target: L10nTarget
    @Argument(help: "Keys to remove.") var keys: [String]
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("give at least one key") }
        for key in keys {
            do { try LocalizationError.check(key: key) } catch { throw ValidationError(error.description) }
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let tenantID = target.tenant.tenant
        let removal: LocalizationRemoval
        if let remote = try await AdminRemote.select(global, context: context) {
            removal = try await remote.unsetTexts(tenantID: tenantID, locale: target.locale, keys: keys)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenantID, context: context)
            let store = state.access.stores.localization
            let trail = LocalizationTrail.texts(tenantID: tenantID, actor: .local(user: state.access.actor), requestID: nil, time: Date())
            removal = LocalizationRemoval(
                removed: try await UserStateAccess.mapErrors {
                    try await store.unset(keys, tenantID: tenantID, locale: target.locale, trail: trail)
                })
        }
        if global.json {
            try context.printJSON(removal)
        } else {
            context.print("removed \(removal.removed) text(s)")
        }
    }
}
