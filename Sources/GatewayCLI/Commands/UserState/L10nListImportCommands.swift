import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl l10n list --tenant T [--locale ja]`
struct L10nListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a tenant's overrides.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "Only this locale.") var locale: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let locale, LocaleTag.normalize(locale) == nil {
            throw ValidationError(LocalizationError.invalidLocale(locale).description)
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let rows: [LocalizationOverride]
        if let remote = try await AdminRemote.select(global, context: context) {
            rows = try await remote.localization(tenantID: tenant.tenant, locale: locale)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let store = state.access.stores.localization
            rows = try await UserStateAccess.mapErrors {
                try await store.overrides(tenantID: tenant.tenant, locale: locale)
            }
        }
        if global.json {
            try context.printJSON(rows)
            return
        }
        var table = TextTable(header: ["LOCALE", "KEY", "TEXT"])
        table.rows = rows.map { [$0.locale, $0.key, TenantText.oneLine($0.value, limit: 80)] }
        table.lines.forEach(context.print)
    }
}

/// `gatewayctl l10n import --tenant T --locale ja FILE` (`.strings` or JSON; `-` = stdin)
struct L10nImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Set texts from a .strings file or a JSON object {\"key\": \"text\"} (all or nothing)."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case strings, json
    }

    @OptionGroup var target: L10nTarget
    @Argument(help: "File to read, or - for standard input.") var file: String
    @Option(help: "strings or json (default: from the file extension, else json).") var format: Format?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let data = try InputFile.read(file, context: context)
        let chosen = format ?? (file.lowercased().hasSuffix(".strings") ? .strings : .json)
        let entries = try Self.entries(data, format: chosen)
        guard !entries.isEmpty else { throw CLIError.invalid("\(file) holds no texts") }
        try await L10nWriter.write(entries, target: target, global: global, verb: "imported")
    }

    static func entries(_ data: Data, format: Format) throws -> [String: String] {
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .utf16) else {
            throw CLIError.invalid("the file is not UTF-8 or UTF-16 text")
        }
        switch format {
        case .json:
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8))
            let dictionary = (object as? [String: Any]).map { ($0["entries"] as? [String: Any]) ?? $0 }
            guard let dictionary, let entries = dictionary as? [String: String] else {
                throw CLIError.invalid("expected a JSON object of string keys to string texts")
            }
            return entries
        case .strings:
            do {
                var result: [String: String] = [:]
                for pair in try StringsFileParser.parse(text) { result[pair.key] = pair.value }
                return result
            } catch {
                throw CLIError.invalid("not a valid .strings file: \(error)")
            }
        }
    }
}

/// `gatewayctl l10n default --tenant T --locale ja` (or `--clear`)
struct L10nDefaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default", abstract: "Set the tenant's default locale (tried before en).")

    @OptionGroup var tenant: TenantOption
    @Option(help: "BCP 47 locale.") var locale: String?
    @Flag(help: "Clear the default locale.") var clear = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (locale != nil) != clear else { throw ValidationError("give either --locale or --clear") }
        if let locale, LocaleTag.normalize(locale) == nil {
            throw ValidationError(LocalizationError.invalidLocale(locale).description)
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let result: LocalizationState
        if let remote = try await AdminRemote.select(global, context: context) {
            result = try await remote.setDefaultLocale(tenantID: tenant.tenant, locale: locale)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let store = state.access.stores.localization
            let trail = LocalizationTrail.defaultLocale(
                tenantID: tenant.tenant, actor: .local(user: state.access.actor), requestID: nil, time: Date())
            result = try await UserStateAccess.mapErrors {
                try await store.setDefaultLocale(locale, tenantID: tenant.tenant, trail: trail)
            }
        }
        if global.json {
            try context.printJSON(result)
        } else {
            context.print(
                "default locale of tenant \(tenant.tenant): \(result.defaultLocale ?? "none") (version \(result.version))"
            )
        }
    }
}
