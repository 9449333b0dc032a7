import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird
import OpenAPIRuntime

/// Request id, problem mapping and operator authentication of the admin listener, in that
/// order, then the generated handlers with ``AdminScope`` bound.
struct AdminEdgeMiddleware: RouterMiddleware {
    typealias Context = AdminRequestContext
    let ids: RequestIDSequence
    let authenticator: OperatorAuthenticator
    let metrics: AdminMetrics
    /// `admin.public.base.url` (nil: the realm's issuer follows each request's Host).
    var publicBaseURL: String?

    /// Paths that take no operator token: the realm's metadata, sign-in page and token endpoint.
    static let open: Set<String> = [
        "/admin/oauth2/token", "/admin/oauth2/authorize", "/admin/.well-known/openid-configuration",
        "/admin/oauth2/device_authorization", "/admin/oauth2/device",
    ]
    /// The largest request body (a merge patch, a token form): answered 413 past it, never buffered.
    static let maxBodyBytes = 64 * 1024
    /// A user import's body: up to 100000 users.
    static let maxImportBytes = 16 * 1024 * 1024

    /// Whether `contentType` is `application/merge-patch+json` (parameters such as a charset allowed).
    static func isMergePatch(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return media.trimmingCharacters(in: .whitespaces).lowercased() == "application/merge-patch+json"
    }

    /// The body limit of a request to `path`.
    static func maxBodyBytes(path: String) -> Int {
        path.hasSuffix("/user-imports") ? maxImportBytes : maxBodyBytes
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.admin.requestID =
            request.headers[RequestIDMiddleware.headerName].flatMap(RequestIDMiddleware.accept) ?? ids.next()
        context.admin.headers = request.headers
        context.admin.issuer = OperatorSignInPage.issuer(authority: request.head.authority, publicBase: publicBaseURL)
        var response: Response
        var request = request
        let route = AdminRoutes.match(request.uri.path)
        do {
            if PathControlCharacters.held(in: request.uri.path) { throw PathControlCharacters.refusal() }
            try AdminRoutes.check(request.method, route: route, queryNames: request.uri.queryParameters.map(\.key))
            let maximum = Self.maxBodyBytes(path: request.uri.path)
            if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maximum {
                throw GatewayProblem.payloadTooLarge(maximum: maximum)
            }
            if request.method == .patch, !Self.isMergePatch(request.headers[.contentType]) {
                throw GatewayProblem(
                    status: 415, code: "unsupported_media_type", title: "Unsupported media type",
                    detail: "A PATCH body is application/merge-patch+json.")
            }
            request.body = RequestBody(asyncSequence: LimitedRequestBody(base: request.body, maximum: maximum))
            if request.headers[.contentType]?.contains("json") == true {
                // The admin contract has no nullable member, but a decoded `null` reads as absent:
                // refused here, so `{"roles": null}` is not `{}`.
                let buffer = try await request.body.collect(upTo: maximum)
                if JSONNulls.contained(in: Data(buffer: buffer)) {
                    throw AdminError.badRequest("null is not a value in the admin contract: leave the member out")
                }
                request.body = RequestBody(buffer: buffer)
            }
            // The console authenticates by its own session cookie (issue 49).
            if !Self.open.contains(request.uri.path), !request.uri.path.hasPrefix("/console") {
                context.admin.session = try await session(request)
            }
            let scope = context.admin
            let bounded = request
            response = try await AdminScope.$current.withValue(scope) { try await next(bounded, context) }
        } catch {
            if case AdminError.forbidden(let missing) = ProblemMiddleware.underlying(error), let session = context.admin.session {
                metrics.refused(missing, bindings: session.bindings)
            }
            response = AdminProblems.response(for: error, requestID: context.admin.requestID, path: request.uri.path)
        }
        response.headers[RequestIDMiddleware.headerName] = context.admin.requestID
        if request.uri.path.hasPrefix("/console") { ConsolePage.guardHeaders(&response.headers) }
        metrics.count(route: route, method: request.method.rawValue, status: response.status.code)
        return response
    }

    private func session(_ request: Request) async throws -> OperatorSession {
        guard let header = request.headers[.authorization], header.count <= 200,
            header.lowercased().hasPrefix("bearer ")
        else { throw AdminError.unauthorized }
        guard let session = try await authenticator.session(bearer: String(header.dropFirst(7))) else {
            throw AdminError.unauthorized
        }
        return session
    }
}

/// Whether a JSON document holds a `null` anywhere (false for text that is not JSON: the
/// generated decoder refuses that itself).
enum JSONNulls {
    static func contained(in data: Data) -> Bool {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return false }
        return holdsNull(value)
    }

    private static func holdsNull(_ value: Any) -> Bool {
        switch value {
        case is NSNull: true
        case let object as [String: Any]: object.values.contains(where: holdsNull)
        case let array as [Any]: array.contains(where: holdsNull)
        default: false
        }
    }
}

/// The one place admin errors become problem documents (the token endpoint: RFC 6749 errors).
enum AdminProblems {
    static func response(for error: any Error, requestID: String, path: String) -> Response {
        let underlying = ProblemMiddleware.underlying(error)
        if path == "/admin/oauth2/token", (underlying as? GatewayProblem)?.status != 405 { return tokenError(underlying) }
        return ProblemResponse.make(problem(for: underlying, wrapped: error), requestID: requestID)
    }

    static func problem(for error: any Error, wrapped: any Error) -> GatewayProblem {
        switch error {
        case let problem as GatewayProblem:
            return problem
        case let error as AdminError:
            switch error {
            case .unauthorized:
                return GatewayProblem(
                    status: 401, code: "unauthorized", title: "Unauthorized",
                    detail: "An operator access token is required.",
                    headers: [(name: "WWW-Authenticate", value: #"Bearer realm="operators""#)])
            case .forbidden(let missing):
                return GatewayProblem(
                    status: 403, code: "forbidden", title: "Forbidden", detail: "missing permission \(missing)",
                    members: ["missingPermission": .string(missing.description)])
            case .tenantNotFound(let id):
                return GatewayProblem(status: 404, code: "tenant_not_found", title: "Not Found", detail: "no tenant \(id)")
            case .tenantExists(let id):
                return GatewayProblem(status: 409, code: "tenant_exists", title: "Conflict", detail: "a tenant \(id) exists")
            case .preconditionFailed(let current):
                return GatewayProblem(
                    status: 412, code: "precondition_failed", title: "Precondition Failed",
                    detail: "the resource is at revision \(current)", headers: [(name: "ETag", value: "\"\(current)\"")],
                    members: ["currentRevision": .string(String(current))])
            case .badRequest(let detail):
                return GatewayProblem(status: 400, code: "invalid_request", title: "Bad Request", detail: detail)
            case .invalidTenant(let detail):
                return GatewayProblem(status: 422, code: "invalid_tenant", title: "Unprocessable Content", detail: detail)
            case .clientNotFound(let clientID):
                return GatewayProblem(status: 404, code: "client_not_found", title: "Not Found", detail: "no client \(clientID)")
            case .clientExists(let clientID):
                return GatewayProblem(status: 409, code: "client_exists", title: "Conflict", detail: "a client \(clientID) exists")
            case .userNotFound(let username):
                return GatewayProblem(status: 404, code: "user_not_found", title: "Not Found", detail: "no user \(username)")
            case .passkeyNotFound(let id):
                return GatewayProblem(
                    status: 404, code: "passkey_not_found", title: "Not Found", detail: "the user holds no passkey \(id.prefix(64))")
            case .userExists(let username):
                return GatewayProblem(status: 409, code: "user_exists", title: "Conflict", detail: "a user \(username) exists")
            case .invalidUser(let detail):
                return GatewayProblem(status: 422, code: "invalid_user", title: "Unprocessable Content", detail: detail)
            case .pushCredentialsNotFound(let provider):
                return GatewayProblem(
                    status: 404, code: "push_credentials_not_found", title: "Not Found", detail: "no \(provider) credentials")
            case .invalidPushCredentials(let detail):
                return GatewayProblem(status: 422, code: "invalid_push_credentials", title: "Unprocessable Content", detail: detail)
            case .linkDomainNotFound(let host):
                return GatewayProblem(
                    status: 404, code: "link_domain_not_found", title: "Not Found", detail: "the tenant serves no \(host)")
            case .linkDomainTaken(let host):
                return GatewayProblem(
                    status: 409, code: "link_domain_taken", title: "Conflict", detail: "\(host) is served for another tenant")
            case .invalidLinkDomain(let detail):
                return GatewayProblem(status: 422, code: "invalid_link_domain", title: "Unprocessable Content", detail: detail)
            case .trustedIssuerNotFound(let issuer):
                return GatewayProblem(
                    status: 404, code: "trusted_issuer_not_found", title: "Not Found",
                    detail: "the tenant does not trust \(issuer.prefix(200))")
            case .invalidTrustedIssuer(let detail):
                return GatewayProblem(status: 422, code: "invalid_trusted_issuer", title: "Unprocessable Content", detail: detail)
            case .identityProviderNotFound(let alias):
                return GatewayProblem(
                    status: 404, code: "identity_provider_not_found", title: "Not Found", detail: "no identity provider \(alias)")
            case .identityProviderExists(let alias):
                return GatewayProblem(
                    status: 409, code: "identity_provider_exists", title: "Conflict", detail: "an identity provider \(alias) exists")
            case .invalidIdentityProvider(let detail):
                return GatewayProblem(status: 422, code: "invalid_identity_provider", title: "Unprocessable Content", detail: detail)
            case .invalidLocalization(let detail):
                return GatewayProblem(status: 422, code: "invalid_localization", title: "Unprocessable Content", detail: detail)
            case .invalidNotification(let detail):
                return GatewayProblem(status: 422, code: "invalid_notification", title: "Unprocessable Content", detail: detail)
            case .notificationNotFound(let id):
                return GatewayProblem(
                    status: 404, code: "notification_not_found", title: "Not Found", detail: "no notification \(id.prefix(64))")
            case .importBusy:
                return GatewayProblem(
                    status: 429, code: "import_busy", title: "Too Many Requests",
                    detail: "this replica runs \(AdminService.concurrentImports) imports already; retry shortly",
                    headers: [(name: "Retry-After", value: "5")])
            case .auditRecordNotFound(let id):
                return GatewayProblem(
                    status: 404, code: "audit_record_not_found", title: "Not Found", detail: "no audit record \(id)")
            case .jobNotFound(let id):
                return GatewayProblem(status: 404, code: "job_not_found", title: "Not Found", detail: "no job \(id.prefix(64))")
            case .signingKeyNotFound(let kid):
                return GatewayProblem(
                    status: 404, code: "signing_key_not_found", title: "Not Found", detail: "no published signing key \(kid)")
            case .signingKeyConflict(let detail):
                return GatewayProblem(status: 409, code: "signing_key_conflict", title: "Conflict", detail: detail)
            case .invalidClientMetadata(let detail):
                return GatewayProblem(
                    status: 422, code: "invalid_client_metadata", title: "Unprocessable Content", detail: detail)
            case .releaseNotFound(let miniAppID):
                return GatewayProblem(
                    status: 404, code: "release_not_found", title: "Not Found",
                    detail: "mini app \(miniAppID) has no release policy")
            case .invalidRelease(let detail):
                return GatewayProblem(status: 422, code: "invalid_release", title: "Unprocessable Content", detail: detail)
            case .releaseStateConflict(let detail):
                return GatewayProblem(status: 409, code: "release_state_conflict", title: "Conflict", detail: detail)
            case .idempotencyKeyReused:
                return GatewayProblem(
                    status: 422, code: "idempotency_key_reused", title: "Unprocessable Content",
                    detail: "this Idempotency-Key was used for a different request")
            case .idempotencyInProgress:
                return GatewayProblem(
                    status: 409, code: "idempotency_in_progress", title: "Conflict",
                    detail: "a request with this Idempotency-Key is still running; retry later",
                    headers: [(name: "Retry-After", value: "1")])
            case .invalidBinding(let detail):
                return GatewayProblem(status: 422, code: "invalid_binding", title: "Unprocessable Content", detail: detail)
            case .invalidOperator(let detail):
                return GatewayProblem(status: 422, code: "invalid_operator", title: "Unprocessable Content", detail: detail)
            case .operatorNotFound(let name):
                return GatewayProblem(status: 404, code: "operator_not_found", title: "Not Found", detail: "no operator \(name)")
            case .operatorExists(let name):
                return GatewayProblem(
                    status: 409, code: "operator_exists", title: "Conflict", detail: "an operator named \(name) exists")
            case .bindingNotFound(let detail):
                return GatewayProblem(status: 404, code: "binding_not_found", title: "Not Found", detail: detail)
            }
        case _ where DatabaseUnavailable(meaning: error) != nil:
            return .databaseUnavailable()
        case let unstorable as UnstorableText:
            return .invalidRequest(unstorable.description)
        case let error as HTTPError where error.status == .notFound:
            return .notFound()
        default:
            if let serverError = wrapped as? ServerError, serverError.httpStatus.code < 500 {
                return GatewayProblem(
                    status: 400, code: "invalid_request", title: "Bad Request",
                    detail: "the request does not match the admin contract")
            }
            return .internalError()
        }
    }

    /// RFC 6749 §5.2 on the operator realm's token endpoint.
    static func tokenError(_ error: any Error) -> Response {
        let (status, code, description): (HTTPResponse.Status, String, String) =
            switch error as? OperatorTokenError {
            case .invalidClient: (.unauthorized, "invalid_client", "client authentication failed")
            case .unsupportedGrantType:
                (
                    .badRequest, "unsupported_grant_type",
                    "the operator realm grants authorization_code, refresh_token, client_credentials and the device code grant"
                )
            case .invalidGrant(let detail): (.badRequest, "invalid_grant", detail)
            case .authorizationPending: (.badRequest, "authorization_pending", "no one approved the device code yet")
            case .slowDown: (.badRequest, "slow_down", "poll less often: the interval grew by 5 seconds")
            case .expiredToken: (.badRequest, "expired_token", "the device code expired; start again")
            case .invalidRequest(let detail): (.badRequest, "invalid_request", detail)
            case nil:
                DatabaseUnavailable(meaning: error) != nil
                    ? (.serviceUnavailable, "temporarily_unavailable", "the database is unavailable")
                    : (.badRequest, "invalid_request", "the token request does not match the admin contract")
            }
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .unauthorized { headers[.wwwAuthenticate] = #"Basic realm="operators""# }
        let body = (try? JSONValue.object(["error": .string(code), "error_description": .string(description)]).encoded())
            ?? Data()
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
