import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl user add|import|list|passwd|update|disable|delete|link|unlink|links --tenant T`
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage a tenant's local users (scrypt-hashed passwords, optional TOTP second factor).",
        subcommands: [
            UserAddCommand.self, UserImportCommand.self, UserListCommand.self, UserPasswdCommand.self,
            UserUpdateCommand.self, UserDisableCommand.self,
            UserDeleteCommand.self,
            UserLinkCommand.self, UserUnlinkCommand.self, UserLinksCommand.self,
        ]
    )
}

struct UserDocument: Encodable {
    var username: String
    var subject: String
    var name: String?
    var email: String?
    var picture: String?
    var disabled: Bool
    /// Whether the user has a TOTP second factor (never the secret).
    var totp: Bool
    /// Created for an upstream identity: no password, signs in only through its provider.
    var upstreamOnly: Bool

    init(_ u: LocalUser) {
        username = u.username
        subject = u.subject
        name = u.name
        email = u.email
        picture = u.picture
        disabled = u.disabled
        totp = u.totpSecret != nil
        upstreamOnly = u.passwordHash == IdentityLinker.noPassword
    }
}

/// What a username may be.
enum UsernameRule {
    /// Why `username` is refused (`username must be …`), or nil.
    static func problem(_ username: String) -> String? {
        (1...200).contains(username.count) && !username.contains(where: { $0.isWhitespace })
            ? nil : "username must be 1-200 characters without spaces"
    }
}

enum PasswordInput {
    /// How long a password may be.
    static let lengths = 8...1024

    /// The first line of standard input, `lengths` characters long.
    static func read(_ context: CLIContext) throws -> String {
        try line(context, what: "password", lengths: lengths)
    }

    /// The first line of standard input, `lengths` characters long (secrets never come from arguments).
    static func line(_ context: CLIContext, what: String, lengths: ClosedRange<Int>) throws -> String {
        let data = try context.standardInput()
        let text = String(decoding: data, as: UTF8.self)
        let line =
            text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map {
                String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            } ?? ""
        guard lengths.contains(line.count) else {
            throw CLIError.invalid(
                "the \(what) on standard input must be \(lengths.lowerBound)-\(lengths.upperBound) characters")
        }
        return line
    }
}

struct UserAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a user; the password is read from standard input.")
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username (1-200 characters, no spaces).") var username: String
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (required).")
    var passwordStdin = false
    @Option(help: "Display name.") var name: String?
    @Option(help: "E-mail address.") var email: String?
    @Option(help: "Picture URL.") var picture: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let problem = UsernameRule.problem(username) { throw ValidationError("--\(problem)") }
        guard passwordStdin else {
            throw ValidationError("--password-stdin is required (passwords are never taken from arguments)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let password = try PasswordInput.read(context)
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let user = LocalUser(
            tenantID: tenant.tenant, username: username, name: name, email: email, picture: picture,
            passwordHash: try PasswordHasher().hash(password))
        try await a.auth.addUser(user)
        try context.report(
            "added user \(username) (sub \(user.subject)) to tenant \(tenant.tenant)", document: UserDocument(user),
            json: global.json)
    }
}

struct UserListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List users.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let users = try await a.auth.users(tenantID: tenant.tenant).map(UserDocument.init)
        if global.json { try context.printJSON(users); return }
        var table = TextTable(header: ["USERNAME", "SUBJECT", "NAME", "SIGN-IN", "STATE"])
        for u in users {
            let signIn = u.upstreamOnly ? "upstream" : u.totp ? "password+totp" : "password"
            table.rows.append([u.username, u.subject, u.name ?? "-", signIn, u.disabled ? "disabled" : "active"])
        }
        table.lines.forEach(context.print)
    }
}

struct UserPasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Set a user's password from standard input.")
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username.") var username: String
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input (required).")
    var passwordStdin = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard passwordStdin else {
            throw ValidationError("--password-stdin is required (passwords are never taken from arguments)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let password = try PasswordInput.read(context)
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        var user = try await a.requireUser(tenant: tenant.tenant, username: username)
        user.passwordHash = try PasswordHasher().hash(password)
        try await a.auth.updateUser(user)
        try context.report("changed the password of \(username)", document: UserDocument(user), json: global.json)
    }
}

struct UserUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change a user's profile or second factor.",
        discussion: """
            --totp gives the user a new TOTP secret (replacing any old one) and prints it once, as \
            an otpauth:// URI for an authenticator app and as Base32 text; it is sealed at rest \
            and never shown again. From then on the sign-in form and the authorization challenge \
            endpoint ask for a one-time code after the password. --no-totp removes it.
            """
    )
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username.") var username: String
    @Option(help: "Display name (empty clears).") var name: String?
    @Option(help: "E-mail address (empty clears).") var email: String?
    @Option(help: "Picture URL (empty clears).") var picture: String?
    @Flag(
        name: .customLong("totp"), inversion: .prefixedNo,
        help: "Set up (or with --no-totp remove) a TOTP second factor.") var totp: Bool?
    @OptionGroup var global: GlobalOptions

    struct Result: Encodable {
        var user: UserDocument
        /// Only when --totp made a new secret: shown this once.
        var totpSecret: String?
        var otpauthURI: String?
    }

    func validate() throws {
        guard name != nil || email != nil || picture != nil || totp != nil else {
            throw ValidationError("nothing to change: give --totp, --no-totp, --name, --email or --picture")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        var user = try await a.requireUser(tenant: tenant.tenant, username: username)
        func optional(_ value: String?) -> String?? { value.map { $0.isEmpty ? nil : $0 } }
        if let value = optional(name) { user.name = value }
        if let value = optional(email) { user.email = value }
        if let value = optional(picture) { user.picture = value }
        var secret: String?
        if let totp {
            secret = totp ? TOTP.newSecret() : nil
            user.totpSecret = secret.map(SecretValue.init)
        }
        try await a.auth.updateUser(user)
        let uri = secret.map { TOTP.provisioningURI(secret: $0, issuer: tenant.tenant, account: username) }
        if global.json {
            try context.printJSON(Result(user: UserDocument(user), totpSecret: secret, otpauthURI: uri))
            return
        }
        context.print("updated user \(username)")
        if let secret, let uri {
            context.print("TOTP set up; shown once, add it to the user's authenticator app:")
            context.print("  otpauth URI:  \(uri)")
            context.print("  secret:       \(secret)")
        } else if totp == false {
            context.print("TOTP removed: the user signs in with the password only")
        }
    }
}

struct UserDisableCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Disable (or with --enable, re-enable) a user: sign-in and every token they hold.",
        discussion: """
            Disabling refuses the user's sign-in and, in the same transaction, revokes every refresh \
            token (their sessions end) and records every unexpired access token and mini-app token \
            of the user as revoked: running gateways refuse them within a second (their revocation \
            poll). Re-enabling lets the user sign in again; it revives no old token.
            """)
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username.") var username: String
    @Flag(help: "Re-enable instead.") var enable = false
    @OptionGroup var global: GlobalOptions

    /// The user's document with `revokedTokens` beside its fields.
    private struct Report: Encodable {
        var user: UserDocument
        var revokedTokens: Int

        private enum CodingKeys: String, CodingKey { case revokedTokens }

        func encode(to encoder: any Encoder) throws {
            try user.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(revokedTokens, forKey: .revokedTokens)
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let user = try await a.requireUser(tenant: tenant.tenant, username: username)
        let (stored, revoked) = try await a.auth.setUserDisabled(
            !enable, tenantID: tenant.tenant, subject: user.subject, now: Date())
        try context.report(
            enable
                ? "enabled user \(username)"
                : "disabled user \(username): \(revoked) live token(s) revoked, every session ended",
            document: Report(user: UserDocument(stored), revokedTokens: revoked), json: global.json)
    }
}

/// `gatewayctl user delete --tenant T --username U --yes`: erases a user (right to erasure).
struct UserDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Erase a user: the account and everything kept about it, in one transaction.",
        discussion: """
            Deletes the account, its identity links, refresh tokens (its sessions end), consents, \
            secure storage, mini-app list, issued mini-app token ids, push devices and \
            deliveries, takes the user off release allow and deny lists, and records every \
            unexpired access token and mini-app token of the user as revoked: running gateways \
            refuse them within a second (their revocation poll). Analytics events \
            carry no user id and stay. Asks for --yes; `user disable` is the reversible \
            alternative.
            """
    )
    @OptionGroup var tenant: TenantOption
    @Option(help: "Username.") var username: String
    @Flag(help: "Confirm the erasure (it cannot be undone).") var yes = false
    @OptionGroup var global: GlobalOptions

    private struct Report: Encodable {
        var username: String
        var subject: String
        var erasure: UserErasure
        /// Mini apps whose release allow or deny list named the user.
        var releaseListsOf: [String]
    }

    func validate() throws {
        guard yes else { throw ValidationError("erasing a user cannot be undone: add --yes (or use `user disable`)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
        let user = try await a.requireUser(tenant: tenant.tenant, username: username)
        let erasure = try await a.auth.eraseUser(tenantID: tenant.tenant, subject: user.subject, now: Date())
        // After the account: a failure here leaves lists naming a user that no longer exists
        // (harmless, and the error says so), never an account that was kept.
        let lists: [String]
        do {
            lists = try await ReleaseService(store: a.access.stores.releases)
                .forget(userID: user.subject, tenantID: tenant.tenant, actor: a.access.actor)
        } catch {
            throw CLIError.failure(
                "erased user \(username), but taking sub \(user.subject) off release lists failed: \(error); "
                    + "write those lists again with `release set --allow-users-file/--deny-users-file`")
        }
        let rows = erasure.deleted.values.reduce(0, +)
        try context.report(
            "erased user \(username) (sub \(user.subject)) of tenant \(tenant.tenant): \(rows) row(s) deleted, "
                + "\(erasure.revokedTokens) live token(s) revoked, off the release lists of \(lists.count) mini app(s)",
            document: Report(username: username, subject: user.subject, erasure: erasure, releaseListsOf: lists),
            json: global.json)
    }
}
