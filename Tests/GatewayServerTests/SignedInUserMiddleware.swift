import Foundation
import GatewayAPI
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
@testable import GatewayServer
import Synchronization

/// Real users signed in through the live gateway's PKCE flow (`OAuthTestKit`), one per
/// tenant, each signed in once (concurrent callers share the sign-in).
final class SignedInUsers: Sendable {
    private let port: Int
    private let state = Mutex<(harness: GatewayHarness?, tokens: [String: Task<String, any Error>])>((nil, [:]))

    init(port: Int) {
        self.port = port
    }

    /// Completes the cycle harness → users → harness once the harness exists.
    func attach(_ harness: GatewayHarness) {
        state.withLock { $0.harness = harness }
    }

    /// A bearer access token of a user of `tenant`.
    func accessToken(tenant: String) async throws -> String {
        let task = state.withLock { state -> Task<String, any Error> in
            if let running = state.tokens[tenant] { return running }
            let harness = state.harness
            let port = port
            let task = Task<String, any Error> {
                guard let harness else { throw CancellationError() }
                let plain = Client(
                    serverURL: URL(string: "http://127.0.0.1:\(port)")!,
                    transport: AsyncHTTPClientTransport(configuration: .init(client: TestHTTP.noRedirects))
                )
                var kit = OAuthTestKit(harness: harness, client: plain, port: port)
                kit.tenant = tenant
                try await kit.setUp()
                return try await kit.tokens().accessToken
            }
            state.tokens[tenant] = task
            return task
        }
        return try await task.value
    }
}

/// Client middleware of the harness's generated client: a request to a protected
/// operation (`security` naming `bearer` in the contract) that carries no `Authorization` gets the bearer token
/// of a real signed-in user of that tenant. Tests about refusals build their own clients.
struct SignedInUserMiddleware: ClientMiddleware {
    let users: SignedInUsers

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let path = String((request.path ?? "").prefix { $0 != "?" })
        guard request.headerFields[.authorization] == nil,
            ContractOperation.named(operationID)?.facts.security == .bearer,
            let tenant = path.split(separator: "/").dropFirst().first.map(String.init),
            let token = try? await users.accessToken(tenant: tenant)
        else {
            return try await next(request, body, baseURL)
        }
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
