import AdminAPI
import Foundation
import GatewayCore
import ProcessSpawn

/// A person's sign-in to the admin API (issue 48, RFC 8252): the browser shows the admin
/// listener's sign-in page, which redirects to a loopback listener of this process with a
/// one-time code; the code and its PKCE verifier buy an access token and a refresh token.
extension AdminRemote {
    /// The built-in public client gatewayctl signs people in as.
    static let personClientID = "gatewayctl"

    /// Signs a person in through the browser. The sign-in URL goes to standard error (and to
    /// `$BROWSER` when it is set); nil `timeout` waits 5 minutes for the redirect.
    static func signInPerson(
        server: String, context: CLIContext, timeout: Duration = .seconds(300)
    ) async throws
        -> AdminSession
    {
        let receiver = try await LoopbackRedirectReceiver.start()
        let verifier = Base64URL.random(byteCount: 32)
        let state = Base64URL.random(byteCount: 16)
        var url = URLComponents(string: server + "/admin/oauth2/authorize")!
        url.queryItems = [
            .init(name: "response_type", value: "code"), .init(name: "client_id", value: personClientID),
            .init(name: "redirect_uri", value: receiver.redirectURI), .init(name: "state", value: state),
            .init(name: "code_challenge", value: PKCE.challenge(for: verifier)),
            .init(name: "code_challenge_method", value: "S256"),
        ]
        let address = url.string ?? server
        context.printError("Open this address in a browser to sign in (waiting for it on \(receiver.redirectURI)):")
        context.printError("  \(address)")
        if let browser = context.environment["BROWSER"], !browser.isEmpty { openBrowser(browser, address, context) }
        guard let answer = try await receiver.next(timeout: timeout) else {
            throw CLIError.invalid(
                "no sign-in came back within \(timeout.components.seconds) seconds; run gatewayctl login again")
        }
        guard answer["state"] == state else {
            throw CLIError.invalid("the sign-in came back with another state; ignored")
        }
        if let error = answer["error"] {
            throw CLIError.invalid("the sign-in was refused: \(error) \(answer["error_description"] ?? "")")
        }
        guard let code = answer["code"] else { throw CLIError.invalid("the sign-in came back without a code") }
        return try await tokens(
            server: server,
            form: .init(
                grantType: "authorization_code", clientId: personClientID, code: code, codeVerifier: verifier,
                redirectUri: receiver.redirectURI))
    }

    /// Signs a person in without a browser here (RFC 8628): prints the device page's address
    /// and a code to enter there (from any device), then polls until the person approved it.
    static func signInPersonOnDevice(server: String, context: CLIContext) async throws -> AdminSession {
        let output = try await makeClient(server, bearer: nil).operatorDeviceAuthorization(
            body: .urlEncodedForm(.init(clientId: personClientID)))
        guard case .ok(let ok) = output else { throw refusal(output) }
        let started = try ok.body.json
        context.printError("On any device, open \(started.verificationUri) and enter the code \(started.userCode)")
        context.printError("  (or open \(started.verificationUriComplete)); waiting up to \(started.expiresIn / 60) minutes")
        var interval = max(1, started.interval)
        let deadline = ContinuousClock.now + .seconds(started.expiresIn)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .seconds(interval))
            do {
                return try await tokens(
                    server: server,
                    form: .init(
                        grantType: "urn:ietf:params:oauth:grant-type:device_code", clientId: personClientID,
                        deviceCode: started.deviceCode))
            } catch DeviceWait.pending {
                continue
            } catch DeviceWait.slowDown {
                interval += 5
            }
        }
        throw CLIError.invalid("no one approved the code within \(started.expiresIn / 60) minutes; run gatewayctl login again")
    }

    /// A device poll's answers that mean "not yet".
    enum DeviceWait: Error {
        case pending
        case slowDown
    }

    /// The saved session with fresh tokens from its refresh token.
    static func refreshed(_ saved: AdminSession) async throws -> AdminSession {
        guard let refreshToken = saved.refreshToken else {
            throw CLIError.invalid(
                "the session with \(saved.server) expired; run gatewayctl login --server \(saved.server) again")
        }
        return try await tokens(
            server: saved.server,
            form: .init(grantType: "refresh_token", clientId: saved.clientId, refreshToken: refreshToken))
    }

    private static func tokens(
        server: String, form: Components.Schemas.OperatorTokenRequest
    ) async throws -> AdminSession {
        let output = try await makeClient(server, bearer: nil).operatorToken(body: .urlEncodedForm(form))
        switch output {
        case .ok(let ok):
            let issued = try ok.body.json
            var session = AdminSession(
                server: server, clientId: form.clientId ?? personClientID, accessToken: issued.accessToken,
                expiresAt: Date().addingTimeInterval(TimeInterval(issued.expiresIn)))
            session.refreshToken = issued.refreshToken
            session.operatorName = try? await whoAmI(server: server, token: issued.accessToken)
            return session
        case .badRequest(let refused):
            let error = try? refused.body.json
            if error?.error == "authorization_pending" { throw DeviceWait.pending }
            if error?.error == "slow_down" { throw DeviceWait.slowDown }
            throw CLIError.invalid(
                "\(server) refused the sign-in (\(error?.error ?? "invalid_request")): \(error?.errorDescription ?? ""); "
                    + "run gatewayctl login --server \(server) again")
        default: throw refusal(output)
        }
    }

    /// The signed-in operator's name.
    private static func whoAmI(server: String, token: String) async throws -> String {
        try await makeClient(server, bearer: token).adminWhoAmI().ok.body.json.name
    }

    private static func openBrowser(_ browser: String, _ address: String, _ context: CLIContext) {
        do {
            _ = try SpawnedProcess.start("/usr/bin/env", [browser, address])
        } catch {
            context.printError("could not start $BROWSER (\(browser)): \(error)")
        }
    }
}
