import ArgumentParser

/// The user-state command groups, registered on the root command.
enum UserStateCommands {
    static let all: [any ParsableCommand.Type] = [
        StorageCommand.self, L10nCommand.self, AnalyticsCommand.self, DomainCommand.self,
    ]
}
