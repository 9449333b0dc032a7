import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl domain ...`
struct DomainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domain",
        abstract: "Web domains of a tenant: deep links, apple-app-site-association and assetlinks.json.",
        subcommands: [DomainAddCommand.self, DomainListCommand.self, DomainRemoveCommand.self]
    )
}

/// `gatewayctl domain add --tenant T --host H [--app-id TEAM.bundle ...] [--android-app PKG=FP ...]`
struct DomainAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a host (or apps to a host) of a tenant.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "Host name, e.g. app.example.com.") var host: String
    @Option(name: .customLong("app-id"), help: "Apple app id TEAMID.bundle.id (repeatable).") var appIDs: [String] = []
    @Option(
        name: .customLong("android-app"),
        help: "Android app PACKAGE=SHA256_CERT_FINGERPRINT as keytool prints it (repeatable; fingerprints add up).")
    var androidApps: [String] = []
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        do {
            _ = try TenantDomainError.host(host)
            for id in appIDs { try TenantDomainError.check(appID: id) }
            _ = try apps()
        } catch {
            throw ValidationError(error.description)
        }
        if appIDs.isEmpty && androidApps.isEmpty {
            throw ValidationError("give at least one --app-id TEAMID.bundle.id or --android-app PACKAGE=FINGERPRINT")
        }
    }

    /// The `--android-app` values, one app per package.
    private func apps() throws(TenantDomainError) -> [AndroidApp] {
        try TenantDomain(host: host, tenantID: tenant.tenant, appIDs: [])
            .adding(appIDs: [], androidApps: try androidApps.map { argument throws(TenantDomainError) in
                try AndroidApp.parse(argument)
            })
            .androidApps
    }

    func run() async throws {
        let context = try CLIContext.require()
        let domain: TenantDomain
        if let remote = try await AdminRemote.select(global, context: context) {
            domain = try await remote.addLinkDomain(
                tenantID: tenant.tenant, host: host, appIDs: appIDs, androidApps: try apps())
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let (store, user, now, apps) = (state.access.stores.domains, state.access.actor, Date(), try apps())
            domain = try await UserStateAccess.mapErrors {
                try await store.add(host: host, tenantID: tenant.tenant, appIDs: appIDs, androidApps: apps) { old, new in
                    LinkDomainTrail.draft(old, new, actor: .local(user: user), requestID: nil, time: now)
                }
            }
        }
        if global.json {
            try context.printJSON(domain)
            return
        }
        let apps = domain.appIDs + domain.androidApps.map(\.packageName)
        context.print("tenant \(tenant.tenant) serves \(domain.host) for \(apps.joined(separator: ", "))")
        for app in domain.androidApps {
            // What the tenant lists in `passkeys.origins` so the app's passkey ceremonies pass.
            context.print("  \(app.packageName) passkey origins: \(app.passkeyOrigins.joined(separator: " "))")
        }
    }
}

/// `gatewayctl domain list [--tenant T]`
struct DomainListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List domains (of one tenant, or all).")

    @Option(help: "Only this tenant.") var tenant: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let tenant, !TenantID.isValid(tenant) {
            throw ValidationError("--tenant must be a tenant id (2-63 of a-z, 0-9, '-')")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let domains: [TenantDomain]
        if let remote = try await AdminRemote.select(global, context: context) {
            guard let tenant else { throw CLIError.invalid("over the admin API, give --tenant") }
            domains = try await remote.linkDomains(tenantID: tenant)
        } else {
            let access = try await StoreAccess.open(global, context: context)
            domains = try await access.stores.domains.domains(tenantID: tenant)
        }
        if global.json {
            try context.printJSON(domains)
            return
        }
        var table = TextTable(header: ["HOST", "TENANT", "APP IDS", "ANDROID APPS"])
        table.rows = domains.map {
            let android = $0.androidApps.map(\.packageName).joined(separator: ",")
            return [$0.host, $0.tenantID, $0.appIDs.joined(separator: ","), android]
        }
        table.lines.forEach(context.print)
    }
}

/// `gatewayctl domain remove --tenant T --host H`
struct DomainRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a host from a tenant.")

    @OptionGroup var tenant: TenantOption
    @Option(help: "Host name.") var host: String
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var removed: String
        var tenant: String
    }

    func validate() throws {
        do { _ = try TenantDomainError.host(host) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let context = try CLIContext.require()
        if let remote = try await AdminRemote.select(global, context: context) {
            try await remote.removeLinkDomain(tenantID: tenant.tenant, host: host)
        } else {
            let state = try await UserStateAccess(global, tenantID: tenant.tenant, context: context)
            let (store, user, now) = (state.access.stores.domains, state.access.actor, Date())
            try await UserStateAccess.mapErrors {
                try await store.remove(host: host, tenantID: tenant.tenant) { old in
                    LinkDomainTrail.draft(old, nil, actor: .local(user: user), requestID: nil, time: now)
                }
            }
        }
        let canonical = host.lowercased()
        if global.json {
            try context.printJSON(Report(removed: canonical, tenant: tenant.tenant))
        } else {
            context.print("removed \(canonical) from tenant \(tenant.tenant)")
        }
    }
}
