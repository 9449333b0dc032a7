import ArgumentParser
import Foundation
import GatewayCore

extension UserImportEntry: ImportEntry {}

/// `gatewayctl user import FILE --tenant T`: adds many users at once, all or nothing.
struct UserImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add many users from a JSON file, all or nothing.",
        discussion: """
            FILE is a JSON array of user objects: username plus exactly one of password \
            (hashed with scrypt here, on every core, with a progress line), passwordHash \
            (an scrypt$… hash from another gateway's database, stored as is) or \
            upstreamOnly: true; optional subject (default: a new UUID), name, email, picture, \
            disabled. Every entry is checked and every password hashed before anything is \
            written; one transaction writes them all, so an invalid entry or a taken \
            username or subject leaves the tenant unchanged. TOTP secrets are not imported \
            (give one with `user update --totp`). At most 100000 users per file. With \
            --server the gateway runs the import as a job (two passwords at a time) and \
            gatewayctl follows its progress.
            """
    )

    @Argument(help: ArgumentHelp("JSON file to read; '-' reads standard input.", valueName: "file")) var file: String
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let started = ContinuousClock.now
        let entries = try ImportEntries.load(
            UserImportEntry.self, file: file, context: context, noun: "user", id: \.username)
        let signIns: [UserImport.SignIn]
        do {
            signIns = try UserImport.check(entries)
        } catch UserAccountError.invalid(let reason) {
            throw CLIError.invalid(reason)
        }
        if let remote = try await AdminRemote.select(global, context: context) {
            let report = try await remote.importUsers(
                tenantID: tenant.tenant, entries: entries, passwords: UserImport.passwordCount(signIns), context: context)
            try print(report, started: started, context: context)
            return
        }
        // Fail on a missing tenant or database before minutes of hashing.
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let progress = ProgressLine("hashing passwords", total: UserImport.passwordCount(signIns), context: context)
        let hashes = try await UserImport.hashes(
            signIns, hasher: PasswordHasher(), width: ProcessInfo.processInfo.activeProcessorCount
        ) { _ in progress.advance() }
        progress.finish()
        let users = UserImport.users(entries, hashes: hashes, tenantID: tenant.tenant)
        try await a.auth.addUsers(users)
        try print(
            UserImportReport(
                imported: users.count, subjects: Dictionary(uniqueKeysWithValues: users.map { ($0.username, $0.subject) })),
            started: started, context: context)
    }

    private func print(_ report: UserImportReport, started: ContinuousClock.Instant, context: CLIContext) throws {
        if global.json {
            try context.printJSON(report)
        } else {
            context.print(
                "imported \(report.imported) user(s) to tenant \(tenant.tenant) in \((ContinuousClock.now - started).formattedSeconds) s"
            )
        }
    }
}
