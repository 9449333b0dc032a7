import ArgumentParser
import Foundation
import GatewayCore

/// One client of a `client import` file: the fields `client list --json` prints, all but
/// `clientID` optional (defaults as `client add`).
struct ClientImportEntry: Decodable, ImportEntry {
    static let fields: Set<String> = [
        "tenantID", "clientID", "confidential", "redirectURIs", "postLogoutRedirectURIs", "allowedScopes", "defaultScopes",
        "requirePAR",
        "dpopBound",
        "accessTokenLifetimeSeconds", "refreshIdleLifetimeSeconds", "refreshAbsoluteLifetimeSeconds",
        "idTokenSigningAlgorithm",
        "dpopNonceRequired", "firstParty", "grantTypes", "miniApps",
        // Printed by `client list --json`; an imported client starts at revision 1 whatever it says.
        "revision",
    ]

    var clientID: String
    var confidential: Bool?
    var redirectURIs: [String]?
    var postLogoutRedirectURIs: [String]?
    var allowedScopes: [String]?
    /// Absent: what `client add` gives (OpenID Connect's, and the host app's for a first-party client).
    var defaultScopes: [String]?
    var requirePAR: Bool?
    var dpopBound: Bool?
    var accessTokenLifetimeSeconds: Int?
    var refreshIdleLifetimeSeconds: Int?
    var refreshAbsoluteLifetimeSeconds: Int?
    var idTokenSigningAlgorithm: SigningKey.Algorithm?
    var dpopNonceRequired: Bool?
    var firstParty: Bool?
    var grantTypes: [String]?
    var miniApps: [String]?

    /// The client in `tenantID` (an entry's own `tenantID` is ignored, so a list exported
    /// from one tenant imports into another).
    func client(tenantID: String) -> OAuthClient {
        let defaults = OAuthClient(tenantID: tenantID, clientID: clientID, redirectURIs: [])
        var client = OAuthClient(
            tenantID: tenantID, clientID: clientID, confidential: confidential ?? false,
            redirectURIs: redirectURIs ?? [],
            postLogoutRedirectURIs: postLogoutRedirectURIs ?? [],
            allowedScopes: allowedScopes ?? defaults.allowedScopes,
            requirePAR: requirePAR ?? false, dpopBound: dpopBound ?? false,
            accessTokenLifetimeSeconds: accessTokenLifetimeSeconds ?? defaults.accessTokenLifetimeSeconds,
            refreshIdleLifetimeSeconds: refreshIdleLifetimeSeconds ?? defaults.refreshIdleLifetimeSeconds,
            refreshAbsoluteLifetimeSeconds: refreshAbsoluteLifetimeSeconds ?? defaults.refreshAbsoluteLifetimeSeconds,
            idTokenSigningAlgorithm: idTokenSigningAlgorithm)
        client.dpopNonceRequired = dpopNonceRequired
        client.firstParty = firstParty
        client.grantTypes = grantTypes
        client.miniApps = miniApps
        client.registerDefaultScopes(defaultScopes)
        return client
    }
}

/// `gatewayctl client import FILE --tenant T`: registers many clients at once, all or nothing.
struct ClientImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Register many clients from a JSON file, all or nothing.",
        discussion: """
            FILE is a JSON array of client objects, as `client list --json` prints them: \
            clientID and redirectURIs are required, every other field defaults as in \
            `client add`; a tenantID in the file is ignored (clients go to --tenant). Every \
            entry is checked before anything is written, and one transaction writes them all: \
            an invalid entry or an id already registered leaves the tenant unchanged. \
            Confidential clients get generated secrets, printed once (a table, or "secrets" \
            with --json). At most 100000 clients per file.
            """
    )

    @Argument(help: ArgumentHelp("JSON file to read; '-' reads standard input.", valueName: "file")) var file: String
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var imported: Int
        /// Generated secrets of the confidential clients, by client id (shown this once).
        var secrets: [String: String]
    }

    func run() async throws {
        let context = try CLIContext.require()
        let started = ContinuousClock.now
        let entries = try ImportEntries.load(
            ClientImportEntry.self, file: file, context: context, noun: "client", id: \.clientID)
        var clients: [NewClient] = []
        var secrets: [(clientID: String, secret: String)] = []
        for (index, entry) in entries.enumerated() {
            let client = entry.client(tenantID: tenant.tenant)
            do { try client.validate() } catch {
                throw CLIError.invalid("clients[\(index)] (\(entry.clientID)): \(error)")
            }
            let secret = client.confidential ? ClientSecret.generate() : nil
            if let secret { secrets.append((client.clientID, secret.secret)) }
            clients.append(NewClient(client, secretHash: secret?.hash))
        }
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        try await a.auth.addClients(clients)
        let seconds = (ContinuousClock.now - started).formattedSeconds
        if global.json {
            try context.printJSON(
                Report(
                    imported: clients.count,
                    secrets: Dictionary(uniqueKeysWithValues: secrets.map { ($0.clientID, $0.secret) })))
            return
        }
        context.print("imported \(clients.count) client(s) to tenant \(tenant.tenant) in \(seconds) s")
        guard !secrets.isEmpty else { return }
        context.print("client secrets (shown once, store them now):")
        var table = TextTable(header: ["CLIENT ID", "CLIENT SECRET"])
        table.rows = secrets.map { [$0.clientID, $0.secret] }
        table.lines.forEach(context.print)
    }
}

extension Duration {
    /// Seconds with one decimal: `12.3`.
    var formattedSeconds: String {
        let (seconds, attoseconds) = components
        return String(format: "%.1f", Double(seconds) + Double(attoseconds) / 1e18)
    }
}
