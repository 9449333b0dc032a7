import Foundation
import HTTPTypes
import GatewayCore
import Hummingbird

/// Protects the operations whose contract `security` names `bearer`/`dpop` (and unknown paths
/// under `/t/{tenant}/v1`, see ``EdgeFacts``): the
/// `Authorization: Bearer` (or `DPoP` + proof) token must be valid for THAT tenant; the
/// verified claims ride in ``RequestScope/principal``. Refusals are 401 problem documents
/// with `WWW-Authenticate`; a valid token without the scope the operation's `security` names
/// is 403 `insufficient_scope` (RFC 6750 §3.1). Also records the raw `Authorization` header for OAuth endpoints.
/// The RAS-compatible API (`/t/{tenant}/ras/`) wants the tenant's client key in `apiKey`
/// instead (401 `invalid_client_key`), plus a bearer token when the tenant requires one (one
/// sent unasked is verified too: it names the user whose release cohort applies).
///
/// DPoP-bound tokens of a client registered with `--dpop-nonce` need the server's nonce in
/// their proofs here too (RFC 9449 §9): the same tenant nonce the token endpoint hands out,
/// so one nonce serves both; without it → 401 `use_dpop_nonce` with a `DPoP-Nonce` header.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let auth: AuthorizationServer
    /// The tenant's own tokens, then its trusted issuers' tokens.
    let tokens: APITokenVerifier
    let issuerBase: IssuerBase
    let nonces: DPoPNonces

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let tenant = context.scope.tenant else { return try await next(request, context) }
        var context = context
        let authorization = request.headers.value(of: .authorization)
        context.scope.authorization = authorization
        switch context.scope.route.facts.security {
        case .rasClientKey:
            // The RAS-compatible API: the tenant's client key, and its bearer token when it asks for one.
            let header = request.headers.value(of: HTTPField.Name("apiKey")!)
            // The contract bounds the header: longer is refused, whether or not the tenant checks keys.
            if let header, header.utf8.count > 256 {
                throw GatewayProblem.invalidRequest("`apiKey` is at most 256 characters.")
            }
            let key = RASClientKey.fromHeader(header) ?? ""
            guard tenant.ras.accepts(key, now: auth.clock.now()) else { throw GatewayProblem.invalidClientKey() }
            // A bearer token sent unasked names the user too (staged releases decide per user).
            if tenant.ras.requireBearer || authorization != nil {
                context.scope.principal = try await verify(
                    request, authorization: authorization, issuer: issuerBase.issuer(tenantID: tenant.id),
                    tenantID: tenant.id)
            }
        case .bearer:
            let issuer = issuerBase.issuer(tenantID: tenant.id)
            let claims: AccessTokenClaims
            do {
                claims = try await verify(request, authorization: authorization, issuer: issuer, tenantID: tenant.id)
            } catch TokenRejection.dpopNonceRequired {
                var problem = TokenRejection.dpopNonceRequired.problem
                problem.headers.append((name: "DPoP-Nonce", value: nonces.current(tenantID: tenant.id)))
                throw problem
            }
            // The operation's scope, as the contract names it (an unknown path needs none: it is 404).
            if let missing = context.scope.route.operation?.missingScope(of: claims) {
                throw TokenRejection.insufficientScope(missing, dpop: claims.dpopJKT != nil)
            }
            context.scope.principal = claims
        case .sender:
            guard let (scheme, token) = Self.credentials(authorization), scheme == "bearer" else {
                throw TokenRejection.missing
            }
            let sender = try await auth.verifier.verifySenderToken(
                token, issuer: issuerBase.issuer(tenantID: tenant.id), tenantID: tenant.id)
            if let missing = context.scope.route.operation?.missingScope(in: sender.scopes) {
                throw TokenRejection.insufficientScope(missing, dpop: false)
            }
            context.scope.sender = sender
        case .anonymous:
            break
        }
        return try await next(request, context)
    }

    private func verify(
        _ request: Request, authorization: String?, issuer: String, tenantID: String
    ) async throws -> AccessTokenClaims {
        guard let (scheme, token) = Self.credentials(authorization), scheme == "bearer" || scheme == "dpop",
            !token.isEmpty
        else { throw TokenRejection.missing }
        let claims = try await tokens.verify(token, issuer: issuer, tenantID: tenantID)
        if let jkt = claims.dpopJKT {
            guard scheme == "dpop" else {
                throw TokenRejection.invalidToken("this access token is DPoP-bound; use the DPoP scheme with a proof")
            }
            let proofs = request.headers[values: HTTPField.Name("DPoP")!]
            guard proofs.count == 1 else { throw TokenRejection.invalidDPoPProof("exactly one DPoP proof is required") }
            let url = issuerBase.baseURL + request.uri.path
            let nonceRequired = try await auth.requiresDPoPNonce(tenantID: tenantID, clientID: claims.clientID)
            let nonceCheck = nonceRequired ? nonces.validator(tenantID: tenantID) : nil
            let proofJKT = try await auth.dpop.verify(
                proof: proofs[0], method: request.method.rawValue, url: url, accessToken: token, nonce: nonceCheck)
            guard proofJKT == jkt else {
                throw TokenRejection.invalidDPoPProof("the DPoP proof key does not match the token binding")
            }
        } else if scheme == "dpop" {
            throw TokenRejection.invalidToken("this access token is not DPoP-bound")
        }
        return claims
    }

    /// The scheme (lower case) and credentials of an `Authorization` header; nil without one.
    static func credentials(_ authorization: String?) -> (scheme: String, token: String)? {
        guard let authorization, let space = authorization.firstIndex(of: " ") else { return nil }
        return (
            authorization[..<space].lowercased(), String(authorization[authorization.index(after: space)...].trimmingBlanks)
        )
    }
}
