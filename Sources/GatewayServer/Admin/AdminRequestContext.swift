import GatewayCore
import Hummingbird
import HTTPTypes
import NIOCore

/// What the admin listener's middlewares learned about one request: its id, the peer, the
/// raw headers, and once authenticated the operator's session. Bound as a task local for the
/// generated handlers, which see typed inputs only.
struct AdminScope: Sendable {
    var requestID = ""
    var address: String?
    var headers = HTTPFields()
    /// The operator realm's issuer for this request (``OperatorSignInPage/issuer(authority:publicBase:)``):
    /// its discovery, redirect URIs and cookies' scope.
    var issuer = OperatorSignInPage.issuer(authority: nil)
    var session: OperatorSession?

    @TaskLocal static var current = AdminScope()

    /// The call of an authenticated request (the auth middleware ran: there is a session).
    static func call() throws -> AdminCall {
        guard let session = current.session else { throw AdminError.unauthorized }
        return AdminCall(
            session: session, requestID: current.requestID, address: current.address,
            userAgent: current.headers[.userAgent].map { String($0.prefix(300)) })
    }
}

/// The admin listener's request context.
struct AdminRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var admin = AdminScope()

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        admin.address = source.channel.remoteAddress?.ipAddress
    }
}
