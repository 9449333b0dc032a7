import ArgumentParser
import Foundation
import GatewayCore

/// One user of a `user import` file: the fields `user list --json` prints, plus how the user
/// signs in: a `password` (hashed here), a `passwordHash` carried over from another gateway
/// (`scrypt$…`), or `upstreamOnly: true` (signs in only through an identity provider).
struct UserImportEntry: Decodable, ImportEntry {
    static let fields: Set<String> = [
        "username", "subject", "name", "email", "picture", "disabled", "password", "passwordHash", "upstreamOnly",
        "totp",
    ]

    var username: String
    var subject: String?
    var name: String?
    var email: String?
    var picture: String?
    var disabled: Bool?
    var password: String?
    var passwordHash: String?
    var upstreamOnly: Bool?
    /// `user list --json` prints it; only `false` is accepted (secrets are never exported).
    var totp: Bool?

    /// How the entry signs in, or why it is refused.
    enum SignIn {
        case password(String)
        case stored(String)
    }

    func signIn() throws -> SignIn {
        switch (password, passwordHash, upstreamOnly == true) {
        case (let password?, nil, false):
            guard PasswordInput.lengths.contains(password.count) else {
                throw CLIError.invalid(
                    "password must be \(PasswordInput.lengths.lowerBound)-\(PasswordInput.lengths.upperBound) characters"
                )
            }
            return .password(password)
        case (nil, let hash?, false):
            guard PasswordHasher.isWellFormed(hash) else {
                throw CLIError.invalid("passwordHash is not an scrypt$logN$r$p$salt$key hash")
            }
            return .stored(hash)
        case (nil, nil, true):
            return .stored(IdentityLinker.noPassword)
        default:
            throw CLIError.invalid(
                "give exactly one of password, passwordHash or upstreamOnly: true (`user list --json` carries no passwords)"
            )
        }
    }
}

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
            (give one with `user update --totp`). At most 100000 users per file.
            """
    )

    @Argument(help: ArgumentHelp("JSON file to read; '-' reads standard input.", valueName: "file")) var file: String
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var imported: Int
        var subjects: [String: String]
    }

    func run() async throws {
        let context = try CLIContext.require()
        let started = ContinuousClock.now
        let entries = try ImportEntries.load(
            UserImportEntry.self, file: file, context: context, noun: "user", id: \.username)
        if let repeated = ImportEntries.firstRepeated(entries.compactMap(\.subject)) {
            throw CLIError.invalid("subject \(repeated) appears twice in \(file)")
        }
        let signIns = try entries.enumerated().map { index, entry in
            do {
                if let problem = LocalUser.usernameProblem(entry.username) { throw CLIError.invalid(problem) }
                if entry.subject?.isEmpty == true || (entry.subject?.count ?? 0) > 255 {
                    throw CLIError.invalid("subject must be 1-255 characters")
                }
                if entry.totp == true {
                    throw CLIError.invalid(
                        "TOTP secrets are not imported: give the user one with `user update --totp` afterwards")
                }
                return try entry.signIn()
            } catch let error as CLIError {
                throw CLIError.invalid("users[\(index)] (\(entry.username)): \(error)")
            }
        }
        // Fail on a missing tenant or database before minutes of hashing.
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let hashes = try await Self.hashes(signIns, context: context)
        let users = zip(entries, hashes).map { entry, hash in
            LocalUser(
                tenantID: tenant.tenant, username: entry.username,
                subject: entry.subject ?? RandomUUID.lowercased(), name: entry.name,
                email: entry.email, picture: entry.picture, disabled: entry.disabled ?? false, passwordHash: hash)
        }
        try await a.auth.addUsers(users)
        if global.json {
            try context.printJSON(
                Report(
                    imported: users.count,
                    subjects: Dictionary(uniqueKeysWithValues: users.map { ($0.username, $0.subject) })))
        } else {
            context.print(
                "imported \(users.count) user(s) to tenant \(tenant.tenant) in \((ContinuousClock.now - started).formattedSeconds) s"
            )
        }
    }

    /// The stored hash of every entry, in order: plaintext passwords hashed on every core.
    private static func hashes(_ signIns: [UserImportEntry.SignIn], context: CLIContext) async throws -> [String] {
        var hashes = [String](repeating: "", count: signIns.count)
        var pending: [(index: Int, password: String)] = []
        for (index, signIn) in signIns.enumerated() {
            switch signIn {
            case .stored(let hash): hashes[index] = hash
            case .password(let password): pending.append((index, password))
            }
        }
        let progress = ProgressLine("hashing passwords", total: pending.count, context: context)
        defer { progress.finish() }
        let hasher = PasswordHasher()
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var next = pending.makeIterator()
            func addNext() {
                guard let item = next.next() else { return }
                group.addTask { (item.index, try hasher.hash(item.password)) }
            }
            for _ in 0..<width { addNext() }
            while let (index, hash) = try await group.next() {
                hashes[index] = hash
                progress.advance()
                addNext()
            }
        }
        return hashes
    }
}
