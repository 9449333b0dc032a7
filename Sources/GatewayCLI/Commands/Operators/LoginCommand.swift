import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl login --server URL --client-id ID --client-secret-stdin`: signs a service
/// account in to a gateway's admin API; commands that have an API then go through it.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a gateway's admin API; later commands with an API go through it (--local: the database).",
        discussion: """
            A service account signs in with its client id and the secret on standard input; the \
            access token (15 minutes, never the secret) is kept in $GATEWAYCTL_HOME/session.json, \
            else ~/.config/gatewayctl/session.json, readable by you only. For automation without a \
            file, set GATEWAY_ADMIN_URL, GATEWAY_ADMIN_CLIENT_ID and GATEWAY_ADMIN_CLIENT_SECRET.
            """)

    @Option(name: .customLong("client-id"), help: "The service account's client id (its operator name).")
    var clientID: String?
    @Flag(name: .customLong("client-secret-stdin"), help: "Read the client secret from standard input.")
    var secretStdin = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard global.server != nil else { throw ValidationError("--server URL of the admin listener is required") }
        guard let clientID else {
            throw ValidationError(
                "people sign in to the admin API once its sign-in page lands; sign in a service account with --client-id")
        }
        guard OperatorName.isValid(clientID) else { throw ValidationError("--client-id: not an operator name") }
        guard secretStdin else { throw ValidationError("--client-secret-stdin is required (secrets never come from arguments)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let server = try AdminRemote.normalized(global.server ?? "")
        let secret = try PasswordInput.line(context, what: "client secret", lengths: 1...200)
        let session = try await AdminRemote.signIn(server: server, clientID: clientID ?? "", secret: secret)
        try session.save(context.environment)
        try context.report(
            "signed in to \(server) as \(session.clientId) until \(RFC3339.string(from: session.expiresAt))",
            document: ["server": server, "clientId": session.clientId, "expiresAt": RFC3339.string(from: session.expiresAt)],
            json: global.json)
    }
}

/// `gatewayctl logout`: forgets the saved admin API session.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget the admin API session gatewayctl login saved.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let removed = AdminSession.remove(context.environment)
        context.print(removed ? "signed out" : "no saved session")
    }
}
