import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl login --server URL`: signs a person in through the browser (RFC 8252 loopback
/// redirect); with `--client-id ID --client-secret-stdin`, a service account. Commands that
/// have an API then go through it.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a gateway's admin API; later commands with an API go through it (--local: the database).",
        discussion: """
            A person: gatewayctl prints the sign-in address (and opens it with $BROWSER when set) \
            and waits up to 5 minutes for the browser to come back to 127.0.0.1; with --device \
            (a shell without a browser) it prints a code to enter on the admin listener's device \
            page from any device, and waits up to 10 minutes; later commands \
            renew the 15-minute access token with a refresh token, for 12 hours. A service account \
            signs in with its client id and the secret on standard input. Tokens (never a secret) \
            are kept in $GATEWAYCTL_HOME/session.json, else ~/.config/gatewayctl/session.json, \
            readable by you only. For automation without a file, set GATEWAY_ADMIN_URL, \
            GATEWAY_ADMIN_CLIENT_ID and GATEWAY_ADMIN_CLIENT_SECRET.
            """)

    @Option(name: .customLong("client-id"), help: "The service account's client id (its operator name).")
    var clientID: String?
    @Flag(name: .customLong("client-secret-stdin"), help: "Read the client secret from standard input.")
    var secretStdin = false
    @Flag(help: "A person without a browser here: enter a code on the admin listener's device page from any device.")
    var device = false
    @Option(
        name: .customLong("private-key-file"),
        help: "A service account's private key (PEM, EC P-256 or RSA): sign in with a signed assertion (private_key_jwt).")
    var privateKeyFile: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard global.server != nil else { throw ValidationError("--server URL of the admin listener is required") }
        guard let clientID else {
            if secretStdin || privateKeyFile != nil {
                throw ValidationError("--client-secret-stdin and --private-key-file go with --client-id (a service account)")
            }
            return
        }
        guard !device else { throw ValidationError("--device signs a person in; it does not go with --client-id") }
        guard OperatorName.isValid(clientID) else { throw ValidationError("--client-id: not an operator name") }
        guard secretStdin != (privateKeyFile != nil) else {
            throw ValidationError(
                "give one of --client-secret-stdin and --private-key-file (secrets never come from arguments)")
        }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let server = try AdminRemote.normalized(global.server ?? "")
        let session: AdminSession
        if let clientID, let privateKeyFile {
            session = try await AdminRemote.signIn(
                server: server, clientID: clientID, privateKeyFile: privateKeyFile, context: context)
        } else if let clientID {
            let secret = try PasswordInput.line(context, what: "client secret", lengths: 1...200)
            session = try await AdminRemote.signIn(server: server, clientID: clientID, secret: secret)
        } else if device {
            session = try await AdminRemote.signInPersonOnDevice(server: server, context: context)
        } else {
            session = try await AdminRemote.signInPerson(server: server, context: context)
        }
        try session.save(context.environment)
        let who = session.operatorName ?? session.clientId
        try context.report(
            "signed in to \(server) as \(who) until \(RFC3339.string(from: session.expiresAt))"
                + (session.refreshToken == nil ? "" : " (renewed as needed)"),
            document: [
                "server": server, "clientId": session.clientId, "operator": who,
                "expiresAt": RFC3339.string(from: session.expiresAt),
            ],
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
