import AdminAPI
import AsyncHTTPClient
import Foundation
import GatewayCore
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// The admin API as gatewayctl reaches it (issue 48): `--server URL`, else
/// `GATEWAY_ADMIN_URL`, else the server saved by `gatewayctl login`; `--local` forces the
/// database. The token: `GATEWAY_ADMIN_TOKEN`, else a service account's
/// `GATEWAY_ADMIN_CLIENT_ID` with `GATEWAY_ADMIN_CLIENT_SECRET` or
/// `GATEWAY_ADMIN_PRIVATE_KEY_FILE` (a token per command), else the saved session's (renewed
/// with its refresh token when it expired).
struct AdminRemote {
    let server: String
    let client: Client

    /// The admin API the command goes to; nil: the database.
    static func select(_ global: GlobalOptions, context: CLIContext) async throws -> AdminRemote? {
        if global.local { return nil }
        let environment = context.environment
        let saved = AdminSession.load(environment)
        let named = global.server ?? environment["GATEWAY_ADMIN_URL"].flatMap { $0.isEmpty ? nil : $0 }
        guard let server = try (named ?? saved?.server).map(normalized) else { return nil }
        let token: String
        if let given = environment["GATEWAY_ADMIN_TOKEN"], !given.isEmpty {
            token = given
        } else if let id = environment["GATEWAY_ADMIN_CLIENT_ID"], let secret = environment["GATEWAY_ADMIN_CLIENT_SECRET"],
            !id.isEmpty, !secret.isEmpty
        {
            token = try await signIn(server: server, clientID: id, secret: secret).accessToken
        } else if let id = environment["GATEWAY_ADMIN_CLIENT_ID"], let keyFile = environment["GATEWAY_ADMIN_PRIVATE_KEY_FILE"],
            !id.isEmpty, !keyFile.isEmpty
        {
            token = try await signIn(server: server, clientID: id, privateKeyFile: keyFile, context: context).accessToken
        } else if let saved, saved.server == server {
            if saved.expiresAt > Date().addingTimeInterval(30) {
                token = saved.accessToken
            } else if saved.refreshToken != nil {
                let renewed = try await refreshed(saved)
                try renewed.save(environment)
                token = renewed.accessToken
            } else {
                throw CLIError.invalid(
                    "the session with \(server) expired at \(RFC3339.string(from: saved.expiresAt)); run gatewayctl login --server \(server) again")
            }
        } else {
            throw CLIError.invalid(
                "not signed in to \(server): run gatewayctl login --server \(server) (a person) or add --client-id ID "
                    + "--client-secret-stdin (a service account; or set GATEWAY_ADMIN_CLIENT_ID and GATEWAY_ADMIN_CLIENT_SECRET)")
        }
        return AdminRemote(server: server, client: try makeClient(server, bearer: token))
    }

    /// Trades a service account's secret for an access token at the operator realm.
    static func signIn(server: String, clientID: String, secret: String) async throws -> AdminSession {
        try await serviceAccountSession(
            server: server, form: .init(grantType: "client_credentials", clientId: clientID, clientSecret: secret),
            refused: "the client id or secret")
    }

    /// A service account's session from a `client_credentials` request `form`; `refused`
    /// names what `invalid_client` refused.
    static func serviceAccountSession(
        server: String, form: Components.Schemas.OperatorTokenRequest, refused: String
    ) async throws -> AdminSession {
        let output = try await makeClient(server, bearer: nil).operatorToken(body: .urlEncodedForm(form))
        switch output {
        case .ok(let ok):
            let issued = try ok.body.json
            return AdminSession(
                server: server, clientId: form.clientId ?? "", accessToken: issued.accessToken,
                expiresAt: Date().addingTimeInterval(TimeInterval(issued.expiresIn)))
        case .unauthorized: throw CLIError.invalid("\(server) refused \(refused) (invalid_client)")
        default: throw refusal(output)
        }
    }

    /// `http(s)://host[:port]` without a trailing slash; anything else is refused.
    static func normalized(_ server: String) throws -> String {
        guard let url = URL(string: server), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil
        else { throw CLIError.invalid("--server must be an http(s) URL of an admin listener, got \(server)") }
        return server.hasSuffix("/") ? String(server.dropLast()) : server
    }

    /// The HTTP client of every admin API call: like `HTTPClient.shared` (one per process,
    /// never shut down), but a server that refuses the connection fails the command at once
    /// instead of being retried until the request's 30 s deadline (a saved session's server
    /// that is gone, issue 62 §3).
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func makeClient(_ server: String, bearer: String?) throws -> Client {
        guard let url = URL(string: server) else { throw CLIError.invalid("--server: \(server) is not a URL") }
        return Client(
            serverURL: url, configuration: AdminWire.configuration,
            transport: AsyncHTTPClientTransport(configuration: .init(client: http, timeout: .seconds(30))),
            middlewares: bearer.map { [BearerToken(token: $0)] } ?? [])
    }

    /// Sends an acting request with one `Idempotency-Key` for the call and its one retry: an
    /// answer lost on the way back (a dropped connection, a timeout) is asked for again and
    /// the action still happens once.
    static func once<Output>(_ send: (String) async throws -> Output) async throws -> Output {
        let key = RandomUUID.lowercased()
        do {
            return try await send(key)
        } catch is ClientError {
            return try await send(key)
        }
    }

    /// Every item of a list, following its `next` cursor page by page (`fetch(cursor)`
    /// answers one page's items and cursor), as the CLI's own type.
    static func all<Item: Decodable>(
        _ type: [Item].Type, _ fetch: (String?) async throws -> (items: any Encodable, next: String?)
    ) async throws -> [Item] {
        var found: [Item] = []
        var cursor: String?
        repeat {
            let page = try await fetch(cursor)
            found += try document(page.items, as: [Item].self)
            cursor = page.next
        } while cursor != nil
        return found
    }

    /// A wire document as the CLI's own type of the same shape (through JSON), so both paths
    /// print it with the same encoder.
    static func document<T: Decodable>(_ wire: some Encodable, as: T.Type) throws -> T {
        try JSONCoding.decoder().decode(T.self, from: JSONCoding.encoder().encode(wire))
    }

    /// An answer other than the one a command expects, as its error: the problem's detail and
    /// code (exit 2 for a refusal of the request, 1 for the server's failure).
    static func refusal(_ output: Any) -> CLIError {
        // The generated outputs are enums whose cases wrap the problem document a few levels
        // down; find it rather than switching over every operation's every case.
        func problem(in value: Any, depth: Int) -> Components.Schemas.Problem? {
            if let found = value as? Components.Schemas.Problem { return found }
            guard depth < 8 else { return nil }
            for child in Mirror(reflecting: value).children {
                if let found = problem(in: child.value, depth: depth + 1) { return found }
            }
            return nil
        }
        guard let found = problem(in: output, depth: 0) else {
            return .failure("the admin API answered \(String(describing: output).prefix(200))")
        }
        let text = "\(found.detail ?? found.title) (\(found.status) \(found.code))"
        return found.status >= 500 ? .failure(text) : .invalid(text)
    }
}

/// Adds the operator's access token to every request.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
