import GatewayCore
import Hummingbird
import OpenAPIRuntime

/// Turns every error that reaches it into an RFC 9457 problem response (on the OAuth
/// endpoints, an RFC 6749 error: see ``OAuthErrorResponse``; on the RAS-compatible API, the
/// SDKs' error bodies: see ``RASErrorResponse``): domain errors become the
/// problem their ``ProblemConvertible`` conformance (`Problems/`) names; contract violations found by the generated server become 4xx; anything
/// else is a logged 500 whose body reveals nothing internal.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    /// Upstream trouble is logged once per tenant × code × detail per interval, not per request.
    let warnings: WarningThrottle

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let allowed = context.scope.route.path?.allowedMethods else {
                return Self.response(.notFound(), context)
            }
            var problem = GatewayProblem.methodNotAllowed()
            problem.headers.append((name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", ")))
            return Self.response(problem, context)
        } catch {
            var problem = Self.problem(for: error)
            if let challenge = Self.clientChallenge(problem, request, context) {
                problem.headers.append((name: "WWW-Authenticate", value: challenge))
            }
            if problem.code == GatewayProblem.internalError().code {
                context.scope.logger.error("request failed", metadata: ["error": "\(Self.loggable(error))"])
            } else if problem.status >= 500 {
                // Upstream or cache trouble mapped to a declared problem: a warning, without the request dump.
                warnings.warning(
                    context.scope.logger, "upstream problem",
                    kind: "\(context.scope.tenant?.id ?? "-")|\(problem.code)|\(problem.detail ?? "")",
                    metadata: [
                        "code": "\(problem.code)", "status": "\(problem.status)", "detail": "\(problem.detail ?? "")",
                    ])
            }
            return Self.response(problem, context, oauthError: (Self.underlying(error) as? OAuthError)?.code)
        }
    }

    /// RFC 6749 §5.2: a 401 `invalid_client` for a client that authenticated with the
    /// `Authorization` header carries `WWW-Authenticate` with the scheme it used (Basic).
    static func clientChallenge(_ problem: GatewayProblem, _ request: Request, _ context: Context) -> String? {
        guard problem.status == 401, context.scope.route.facts.errors == .oauth,
            !problem.headers.contains(where: { $0.name.lowercased() == "www-authenticate" }),
            let header = request.headers[.authorization],
            header.prefix(6).lowercased() == "basic "
        else { return nil }
        return #"Basic realm="\#(context.scope.tenant?.id ?? "gateway")", charset="UTF-8""#
    }

    /// The error document for the request's operation (its `x-gateway-errors`).
    static func response(_ problem: GatewayProblem, _ context: Context, oauthError: String? = nil) -> Response {
        switch context.scope.route.facts.errors {
        case .oauth: OAuthErrorResponse.make(problem, error: oauthError)
        case .ras: RASErrorResponse.make(problem)
        case .problem: ProblemResponse.make(problem, requestID: context.scope.requestID)
        }
    }

    /// What a handler threw (the generated server wraps it in a `ServerError`).
    static func underlying(_ error: any Error) -> any Error {
        (error as? ServerError)?.underlyingError ?? error
    }

    /// What to log of an unexpected error: never the request dump of a `ServerError`
    /// (it carries the `Authorization` header).
    static func loggable(_ error: any Error) -> String {
        guard let serverError = error as? ServerError else { return String(reflecting: error) }
        return "operation \(serverError.operationID): \(String(reflecting: serverError.underlyingError))"
    }

    static func problem(for error: any Error) -> GatewayProblem {
        switch error {
        case let convertible as any ProblemConvertible:
            return convertible.problem
        case is CacheUnavailable:
            return .cacheUnavailable()
        case _ where DatabaseUnavailable(meaning: error) != nil:
            return .databaseUnavailable()
        case let unstorable as UnstorableText:
            return .invalidRequest(unstorable.description)
        case let serverError as ServerError:
            if let convertible = serverError.underlyingError as? any ProblemConvertible { return convertible.problem }
            if serverError.underlyingError is CacheUnavailable { return .cacheUnavailable() }
            if DatabaseUnavailable(meaning: serverError.underlyingError) != nil { return .databaseUnavailable() }
            if let unstorable = serverError.underlyingError as? UnstorableText { return .invalidRequest(unstorable.description) }
            let status = Int(serverError.httpStatus.code)
            // The request could not be decoded into the operation's input (e.g. a query
            // item without `=`): the client's fault, not ours.
            if status == 500, serverError.operationInput == nil {
                return .unparsableRequest()
            }
            guard (400..<500).contains(status) else { return .internalError() }
            return GatewayProblem(
                status: status,
                code: status == 406 ? "not_acceptable" : status == 415 ? "unsupported_media_type" : "invalid_request",
                title: "Invalid request",
                detail: String(serverError.causeDescription.prefix(300))
            )
        case let httpError as HTTPError:
            switch httpError.status {
            case .notFound: return .notFound()
            case .methodNotAllowed: return .methodNotAllowed()
            case let status where (400..<500).contains(Int(status.code)):
                return GatewayProblem(
                    status: Int(status.code), code: "invalid_request", title: status.reasonPhrase,
                    detail: httpError.body)
            default: return .internalError()
            }
        default:
            return .internalError()
        }
    }
}
