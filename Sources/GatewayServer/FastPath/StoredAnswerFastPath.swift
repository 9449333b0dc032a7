import GatewayCore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Prometheus

/// Cache hits of the stored-answer reads (`getMiniApp`, `getMiniAppManifest`,
/// `getMiniAppBundle`) answered on the connection's event loop, below Hummingbird's request
/// pipeline: no task hop, no `Request`/`Response`, no middleware chain. ``StoredAnswerHandler``
/// asks it about each request head; it answers only when every step of the full path
/// (``GatewayResponder``) can be decided in memory, with the same outcome:
///
/// - a `GET` without a body or `Connection` header, of a stored-answer route of an active tenant;
/// - a `Bearer` access token this process verified before, unexpired, known not revoked
///   (``TokenVerifier/acceptedInMemory(_:issuer:tenantID:)``), not DPoP-bound;
/// - the client address under its in-flight cap;
/// - valid ids, an offered version, and an answer held in process (a near hit).
///
/// Anything else — a first sight of a token, a miss, a refusal of any kind — returns nil and
/// the request takes the full path, which words every error. Off when tracing, the access log
/// or rate limits are on (they need the full path's per-request work). The answer carries the
/// full path's headers (`Content-Type`, `ETag`, `X-Request-Id`, `Date`, `Server`; 304 on a
/// matching `If-None-Match`) and is counted in the same metrics.
final class StoredAnswerFastPath: Sendable {
    /// The stored answers' media type (the full path's too).
    static let contentType = "application/json; charset=utf-8"

    /// A decided answer, written when the request's end arrives.
    struct Answer {
        var head: HTTPResponse
        var body: [UInt8]?
        /// The metrics labels and start, recorded once written.
        var route: String
        var tenantID: String
        var start: ContinuousClock.Instant
    }

    private let edge: GatewayResponder
    private let tokens: TokenVerifier
    private let miniApps: MiniAppService
    private let releases: MiniAppReleases
    private let dates = HTTPDateHeader()
    private let serverName: String?
    private let served: Prometheus.Counter

    /// nil when the edge needs its full path for every request (tracing, access log, rate
    /// limits) or serves stored answers through the router only.
    init?(edge: GatewayResponder, serverName: String?) {
        guard let storedAnswers = edge.storedAnswers, edge.tracing == nil, !edge.metrics.accessLog,
            !edge.rateLimits.limiter.isEnabled
        else { return nil }
        self.edge = edge
        tokens = edge.bearer.tokens.local
        miniApps = storedAnswers.handler.services.miniApps
        releases = storedAnswers.handler.services.releases
        self.serverName = serverName
        served = edge.metrics.metrics.fastPathAnswers()
    }

    /// The request headers the fast path reads, from one pass over the head; nil when a
    /// header sends the request down the full path (a body, `Connection`, a repeated field).
    private struct Fields {
        var authorization: String?
        var ifNoneMatch: String?
        var requestID: String?

        init?(_ fields: HTTPFields) {
            for field in fields {
                switch field.name {
                case .connection, .contentLength, .transferEncoding: return nil
                case .authorization:
                    guard authorization == nil else { return nil }
                    authorization = field.value
                case .ifNoneMatch:
                    guard ifNoneMatch == nil else { return nil }
                    ifNoneMatch = field.value
                case RequestIDMiddleware.headerName:
                    guard requestID == nil else { return nil }
                    requestID = field.value
                default: continue
                }
            }
        }
    }

    /// The answer to `head` when it can be given here; nil: pass the request on.
    func answer(_ head: HTTPRequest, connection: ClientConnection?) -> Answer? {
        let start = ContinuousClock.now
        guard head.method == .get, let path = head.path, let fields = Fields(head.headerFields) else { return nil }
        let uri = URI(path)
        // A control character: the full path refuses it.
        guard !PathControlCharacters.held(in: uri.path) else { return nil }
        let route = edge.operations.match(method: .get, path: uri.path)
        guard let operation = route.operation, route.facts.security == .bearer,
            let read = StoredAnswerRead(route: route, uri: uri),
            let segment = route.tenant, let tenant = edge.tenants.directory.tenant(String(segment)),
            tenant.status == TenantStatus.active,
            let (scheme, token) = BearerAuthMiddleware.credentials(fields.authorization), scheme == "bearer",
            let claims = tokens.acceptedInMemory(
                token, issuer: edge.bearer.issuerBase.issuer(tenantID: tenant.id), tenantID: tenant.id),
            claims.dpopJKT == nil, operation.missingScope(of: claims) == nil,  // else the edge's 403
            admitted(head.headerFields, connection),
            let answer = nearAnswer(
                read, tenant: tenant, for: ReleaseAudience(headers: head.headerFields, userID: claims.subject))
        else { return nil }
        var headers = HTTPFields()
        let notModified = EntityTag.matches(fields.ifNoneMatch, answer.etag)
        if !notModified {
            headers[.contentType] = Self.contentType
        }
        headers[.eTag] = answer.etag
        if !notModified {
            headers[.contentLength] = String(answer.body.count)
        }
        headers[RequestIDMiddleware.headerName] =
            fields.requestID.flatMap(RequestIDMiddleware.accept) ?? edge.requestIDs.ids.next()
        headers[.date] = dates.current()
        if let serverName { headers[.server] = serverName }
        return Answer(
            head: HTTPResponse(status: notModified ? .notModified : .ok, headerFields: headers),
            body: notModified ? nil : answer.body, route: operation.template, tenantID: tenant.id, start: start)
    }

    /// The answer of `read` when it can be given without suspending: valid input, an offered
    /// version, and a copy this process holds (``MiniAppService``'s near answers). nil: the
    /// full path answers, and words every refusal.
    private func nearAnswer(
        _ read: StoredAnswerRead, tenant: Tenant, for audience: @autoclosure () -> ReleaseAudience
    ) -> CachedAnswer? {
        guard RequestValidation.isIdentifier(read.id) else { return nil }
        guard let version = read.versionID else {
            guard let info = miniApps.nearMiniApp(tenant: tenant, id: read.id) else { return nil }
            return try? releases.infoInMemory(info, tenantID: tenant.id, miniAppID: read.id, for: audience())
        }
        guard RequestValidation.isIdentifier(version),
            releases.isOffered(tenantID: tenant.id, miniAppID: read.id, versionID: version)
        else { return nil }
        if read.kind == .bundle { return miniApps.nearBundle(tenant: tenant, id: read.id, versionID: version) }
        guard (try? RequestValidation.language(read.lang)) != nil else { return nil }
        return miniApps.nearManifest(tenant: tenant, id: read.id, versionID: version, lang: read.lang)
    }

    /// Counts a written answer as the full path counts its responses.
    func record(_ answer: Answer) {
        let status = Int(answer.head.status.code)
        let metrics = edge.metrics.metrics
        let duration = ContinuousClock.now - answer.start
        metrics.recordRequest(route: answer.route, method: "GET", status: status, duration: duration)
        metrics.recordTenantRequest(tenant: answer.tenantID, status: status, duration: duration)
        served.increment()
    }

    /// Whether the client address is under its in-flight cap (entered and left at once: the
    /// answer is written before anything else runs on this event loop).
    private func admitted(_ fields: HTTPFields, _ connection: ClientConnection?) -> Bool {
        guard let peer = connection?.address else { return true }
        let client = edge.clientAddresses.resolver.resolve(peer: peer, headers: fields)
        guard let inFlight = edge.requestsPerAddress.count(of: client, on: peer) else { return true }
        guard inFlight.enter(client) else { return false }
        inFlight.leave(client)
        return true
    }
}
