import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl user add|import|list|passwd|update|disable|delete|link|unlink|links|passkeys --tenant T`
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage a tenant's local users (scrypt-hashed passwords, optional TOTP second factor).",
        subcommands: [
            UserAddCommand.self, UserImportCommand.self, UserListCommand.self, UserPasswdCommand.self,
            UserUpdateCommand.self, UserDisableCommand.self,
            UserDeleteCommand.self,
            UserLinkCommand.self, UserUnlinkCommand.self, UserLinksCommand.self, UserPasskeysCommand.self,
        ]
    )
}

/// The account service over the database, its changes recorded as the OS user's.
struct LocalUserAccounts {
    let access: AuthAccess
    let service: UserAccountService

    init(_ global: GlobalOptions, tenant: String, context: CLIContext) async throws {
        access = try await AuthAccess(global, tenant: tenant, context: context)
        service = UserAccountService(users: access.auth, releases: access.access.stores.releases)
    }

    var now: UserAccountService.Attribution {
        .init(actor: .local(user: access.access.actor), requestID: nil, time: Date())
    }

    /// `body`, the service's refusals as exit-2 errors naming the tenant.
    func run<T>(tenant: String, _ body: (UserAccountService) async throws -> T) async throws -> T {
        do {
            return try await body(service)
        } catch UserAccountError.notFound(let username) {
            throw CLIError.invalid("no user \(username) in tenant \(tenant)")
        } catch UserAccountError.exists(let username) {
            throw CLIError.invalid("user \(username) already exists in tenant \(tenant)")
        } catch UserAccountError.invalid(let reason) {
            throw CLIError.invalid(reason)
        }
    }
}

enum PasswordInput {
    /// How long a password may be.
    static let lengths = LocalUser.passwordLengths

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
    @Option(help: "Phone number, E.164 (+819012345678).") var phone: String?
    @Option(help: "Picture URL.") var picture: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let problem = LocalUser.usernameProblem(username) { throw ValidationError("--\(problem)") }
        guard passwordStdin else {
            throw ValidationError("--password-stdin is required (passwords are never taken from arguments)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let password = try PasswordInput.read(context)
        let profile = UserPatch(name: name, email: email, phone: phone, picture: picture)
        let user: UserDocument
        if let remote = try await AdminRemote.select(global, context: context) {
            user = try await remote.addUser(tenantID: tenant.tenant, username: username, password: password, profile: profile)
        } else {
            let local = try await LocalUserAccounts(global, tenant: tenant.tenant, context: context)
            user = UserDocument(
                try await local.run(tenant: tenant.tenant) {
                    try await $0.create(
                        tenantID: tenant.tenant, username: username, password: password, profile: profile, by: local.now)
                })
        }
        try context.report(
            "added user \(username) (sub \(user.subject)) to tenant \(tenant.tenant)", document: user, json: global.json)
    }
}

struct UserListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List users.")
    @OptionGroup var tenant: TenantOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let users: [UserDocument]
        if let remote = try await AdminRemote.select(global, context: context) {
            users = try await remote.users(tenantID: tenant.tenant)
        } else {
            let a = try await AuthAccess(global, tenant: tenant.tenant, context: context)
            users = try await a.auth.users(tenantID: tenant.tenant).map(UserDocument.init)
        }
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
        let user = try await UserChange.apply(
            UserPatch(password: password), totp: nil, tenant: tenant.tenant, username: username, global: global,
            context: context
        ).user
        try context.report("changed the password of \(username)", document: user, json: global.json)
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
    @Option(help: "Phone number, E.164 (empty clears).") var phone: String?
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
        guard name != nil || email != nil || phone != nil || picture != nil || totp != nil else {
            throw ValidationError("nothing to change: give --totp, --no-totp, --name, --email, --phone or --picture")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let (user, secret) = try await UserChange.apply(
            UserPatch(name: name, email: email, phone: phone, picture: picture), totp: totp, tenant: tenant.tenant, username: username,
            global: global, context: context)
        let uri = secret.map { TOTP.provisioningURI(secret: $0, issuer: tenant.tenant, account: username) }
        if global.json {
            try context.printJSON(Result(user: user, totpSecret: secret, otpauthURI: uri))
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

    func run() async throws {
        let context = try CLIContext.require()
        let change: UserStateChange
        if let remote = try await AdminRemote.select(global, context: context) {
            change = try await remote.setUserDisabled(tenantID: tenant.tenant, username: username, disabled: !enable)
        } else {
            let local = try await LocalUserAccounts(global, tenant: tenant.tenant, context: context)
            change = try await local.run(tenant: tenant.tenant) {
                try await $0.setDisabled(!enable, tenantID: tenant.tenant, username: username, revision: nil, by: local.now)
            }
        }
        try context.report(
            enable
                ? "enabled user \(username)"
                : "disabled user \(username): \(change.revokedTokens) live token(s) revoked, every session ended",
            document: change, json: global.json)
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

    func validate() throws {
        guard yes else { throw ValidationError("erasing a user cannot be undone: add --yes (or use `user disable`)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let report: UserErasureReport
        if let remote = try await AdminRemote.select(global, context: context) {
            report = try await remote.eraseUser(tenantID: tenant.tenant, username: username)
        } else {
            let local = try await LocalUserAccounts(global, tenant: tenant.tenant, context: context)
            report = try await local.run(tenant: tenant.tenant) {
                try await $0.erase(tenantID: tenant.tenant, username: username, revision: nil, by: local.now)
            }
        }
        let rows = report.erasure.deleted.values.reduce(0, +)
        try context.report(
            "erased user \(username) (sub \(report.subject)) of tenant \(tenant.tenant): \(rows) row(s) deleted, "
                + "\(report.erasure.revokedTokens) live token(s) revoked, off the release lists of "
                + "\(report.releaseListsOf.count) mini app(s)",
            document: report, json: global.json)
    }
}

/// A profile, password or second-factor change on either path: over the API at the revision
/// just read (a change in between is a 412, never overwritten); TOTP only on the database
/// (its secret is shown once, on this terminal).
enum UserChange {
    static func apply(
        _ patch: UserPatch, totp: Bool?, tenant: String, username: String, global: GlobalOptions, context: CLIContext
    ) async throws -> (user: UserDocument, totpSecret: String?) {
        if let remote = try await AdminRemote.select(global, context: context) {
            guard totp == nil else {
                throw CLIError.invalid("--totp and --no-totp need --local: the admin API never carries a TOTP secret")
            }
            let current = try await remote.user(tenantID: tenant, username: username)
            return (try await remote.updateUser(tenantID: tenant, username: username, patch: patch, revision: current.revision), nil)
        }
        let local = try await LocalUserAccounts(global, tenant: tenant, context: context)
        let (user, secret) = try await local.run(tenant: tenant) {
            try await $0.update(tenantID: tenant, username: username, patch: patch, totp: totp, revision: nil, by: local.now)
        }
        return (UserDocument(user), secret)
    }
}
