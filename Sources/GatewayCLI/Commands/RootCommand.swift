import ArgumentParser

/// `gatewayctl`: the operator CLI over the gateway's SQLite tenant store.
struct RootCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatewayctl",
        abstract:
            "Administer SuperApp Gateway tenants in the gateway's database (SQLite file, or PostgreSQL with --database-url).",
        discussion: """
            gatewayctl edits the same database the gateway reads; running gateways pick up \
            changes within a second. Secrets are sealed with the master key and masked in \
            output unless --reveal is given.

            Exit codes: 0 success, 1 failure, 2 invalid input (nothing written).

            Shell completion: gatewayctl --generate-completion-script bash|zsh|fish
            """,
        subcommands: [
            MigrateCommand.self, DatabaseCommand.self, TenantCommand.self, KeysCommand.self, ClientCommand.self,
            UserCommand.self, IdentityProviderCommand.self, IssuerCommand.self, ReleaseCommand.self, PushCommand.self, CourierCommand.self,
            MessagesCommand.self, OperatorCommand.self, AuditCommand.self, LoginCommand.self, LogoutCommand.self,
        ] + UserStateCommands.all
    )
}

/// `gatewayctl tenant ...`
struct TenantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenant",
        abstract: "Create, inspect, change, export and import tenants.",
        subcommands: [
            TenantCreateCommand.self, TenantListCommand.self, TenantShowCommand.self,
            TenantUpdateCommand.self, TenantSuspendCommand.self, TenantResumeCommand.self,
            TenantDeleteCommand.self, TenantExportCommand.self, TenantImportCommand.self,
            TenantAuditCommand.self,
        ]
    )
}
