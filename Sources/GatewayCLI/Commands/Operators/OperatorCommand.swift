import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl operator …`: operators and their role bindings (issue 48). On the database,
/// these are the bootstrap commands: whoever runs them is root, recorded as `local:<user>`.
struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator",
        abstract: "Create operators (people and service accounts) and bind their roles per tenant or platform-wide.",
        subcommands: [
            OperatorCreateCommand.self, OperatorBindCommand.self, OperatorUnbindCommand.self, OperatorListCommand.self,
            OperatorRolesCommand.self, OperatorTOTPCommand.self, OperatorDisableCommand.self,
            OperatorEnableCommand.self, OperatorDeleteCommand.self, OperatorRotateSecretCommand.self,
        ]
    )
}

/// `--role R` parsed into an ``OperatorRole`` with the list of roles in the error.
enum RoleArgument {
    static func parse(_ text: String) throws -> OperatorRole {
        guard let role = OperatorRole(rawValue: text) else {
            let known = OperatorRole.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--role must be one of \(known), got '\(text)'")
        }
        return role
    }

    static let help = ArgumentHelp(
        "Role: \(OperatorRole.allCases.map(\.rawValue).joined(separator: ", ")) (`gatewayctl operator roles`).",
        valueName: "role")
}

/// The service over the database the command opened, and the local actor it records.
struct OperatorAccess {
    let service: OperatorService
    let actor: AuditActor
    let stores: DurableStores
    let checkpoints: AuditCheckpointSigner

    init(_ global: GlobalOptions, context: CLIContext) async throws {
        let access = try await StoreAccess.open(global, context: context, bootstrap: true)
        stores = access.stores
        checkpoints = access.checkpoints
        service = OperatorService(operators: access.stores.operators)
        actor = .local(user: access.actor)
    }
}

/// What `operator create|list --json` prints for one operator (never a credential hash).
struct OperatorDocument: Encodable {
    var id: String
    var name: String
    var kind: String
    var disabled: Bool
    var createdAt: String
    var roles: [String]
    var clientId: String?
    var clientSecret: String?

    init(_ found: Operator, bindings: [RoleBinding], secret: String? = nil) {
        id = found.id
        name = found.name
        kind = found.kind.rawValue
        disabled = found.disabled
        createdAt = RFC3339.string(from: found.createdAt)
        roles = bindings.map(\.label).sorted()
        clientId = found.kind == .serviceAccount ? found.name : nil
        clientSecret = secret
    }
}

struct OperatorCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Add an operator: a person (password on standard input) or a service account (secret shown once).",
        discussion: """
            The first operator of an installation is made here, on the database: \
            gatewayctl operator create alice --platform-admin --password-stdin
            """)
    @Argument(help: "Login name (a person) or client id (a service account): 1-63 of a-z 0-9 . _ -.")
    var name: String
    @Flag(name: .customLong("platform-admin"), help: "Bind platform-admin (everything) at once.")
    var platformAdmin = false
    @Flag(name: .customLong("service-account"), help: "Automation: a client id and a generated secret, no password.")
    var serviceAccount = false
    @Flag(name: .customLong("password-stdin"), help: "Read a person's password (8-1024 characters) from standard input.")
    var passwordStdin = false
    @Option(
        name: .customLong("jwks-file"),
        help: "With --service-account: its public keys (a JWK Set file); it signs assertions (private_key_jwt), no secret.")
    var jwksFile: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if serviceAccount == passwordStdin {
            throw ValidationError("give exactly one of --password-stdin (a person) and --service-account")
        }
        if jwksFile != nil, !serviceAccount { throw ValidationError("--jwks-file goes with --service-account") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let credential: OperatorService.Credential
        if passwordStdin {
            credential = .password(try PasswordInput.read(context))
        } else if let jwksFile {
            let data = try InputFile.read(jwksFile, context: context)
            guard data.count <= 65_536, let jwks = try? JSONValue.decode(data) else {
                throw CLIError.invalid("--jwks-file: \(jwksFile) is not a JSON JWK Set of at most 64 KiB")
            }
            credential = .publicKeys(jwks)
        } else {
            credential = .generatedSecret
        }
        let access = try await OperatorAccess(global, context: context)
        let created = try await access.service.create(
            name: name, credential: credential, roles: platformAdmin ? [(.platformAdmin, nil)] : [], actor: access.actor)
        let document = OperatorDocument(created.createdOperator, bindings: created.bindings, secret: created.secret)
        if global.json { try context.printJSON(document); return }
        context.print("created operator \(name) (\(created.createdOperator.kind.rawValue))")
        if let secret = created.secret {
            context.print("client id: \(name)")
            context.print("client secret (shown once; store it now): \(secret)")
        }
    }
}

struct OperatorBindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bind", abstract: "Give an operator a role in a tenant (or platform-wide without --tenant).")
    @Argument(help: "The operator's name.") var name: String
    @Option(help: RoleArgument.help) var role: String
    @Option(help: ArgumentHelp("The tenant it applies in (omit: platform-wide).", valueName: "id")) var tenant: String?
    @Option(name: .customLong("miniapp"), help: "release-manager only: just this mini app's policy (repeatable).")
    var miniApps: [String] = []
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try RoleArgument.parse(role) }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let role = try RoleArgument.parse(role)
        let changed = try await access.service.bind(
            name: name, role: role, tenantID: tenant, miniAppIDs: miniApps, actor: access.actor)
        let binding = RoleBinding(operatorID: "", role: role, tenantID: tenant, miniAppIDs: miniApps)
        try context.report(
            changed ? "\(name) holds \(binding.label)" : "\(name) already holds \(binding.label); nothing changed",
            document: ["operator": name, "role": binding.label, "changed": changed ? "true" : "false"], json: global.json)
    }
}

struct OperatorUnbindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unbind", abstract: "Take a role (in a tenant, or platform-wide) from an operator.")
    @Argument(help: "The operator's name.") var name: String
    @Option(help: RoleArgument.help) var role: String
    @Option(help: ArgumentHelp("The tenant of the binding (omit: the platform-wide one).", valueName: "id"))
    var tenant: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws { _ = try RoleArgument.parse(role) }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let role = try RoleArgument.parse(role)
        let removed = try await access.service.unbind(name: name, role: role, tenantID: tenant, actor: access.actor)
        let label = RoleBinding(operatorID: "", role: role, tenantID: tenant).label
        if !removed { throw CLIError.invalid("\(name) does not hold \(label)") }
        try context.report(
            "\(name) no longer holds \(label)", document: ["operator": name, "removed": label], json: global.json)
    }
}

struct OperatorListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List operators and their roles.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let documents = try await access.service.list().map { OperatorDocument($0.operator, bindings: $0.bindings) }
        if global.json { try context.printJSON(documents); return }
        var table = TextTable(header: ["NAME", "KIND", "STATE", "ROLES"])
        for d in documents {
            table.rows.append([
                d.name, d.kind, d.disabled ? "disabled" : "active", d.roles.isEmpty ? "-" : d.roles.joined(separator: " "),
            ])
        }
        table.lines.forEach(context.print)
    }
}

struct OperatorRolesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roles",
        abstract: "Print the role table: what each role may do (the table the gateway enforces).",
        discussion: "--markdown prints the table docs/operators.md carries (a test keeps them equal).")
    @Flag(help: "As the Markdown table of docs/operators.md.") var markdown = false

    func run() async throws {
        let context = try CLIContext.require()
        context.print(markdown ? RoleTableText.markdown() : RoleTableText.plain())
    }
}
