import GatewayCore
import Logging

/// What the middlewares learned about the request in flight, handed to the OpenAPI
/// handlers (which see only typed inputs) through a task-local value.
public struct RequestScope: Sendable {
    /// The request id echoed in `X-Request-Id` and in every log line.
    public var requestID: String
    /// Logger carrying `request_id` (and `tenant` once resolved).
    public var logger: Logger
    /// The tenant of a `/t/{tenant}/...` path, resolved from the in-memory snapshot.
    public var tenant: Tenant?
    /// The authenticated user (token `sub`), filled by the auth middleware once it exists.
    public var subject: String?

    public init(requestID: String, logger: Logger, tenant: Tenant? = nil, subject: String? = nil) {
        self.requestID = requestID
        self.logger = logger
        self.tenant = tenant
        self.subject = subject
    }

    @TaskLocal public static var current: RequestScope?

    /// The resolved tenant; a handler under `/t/{tenant}` reaching here without one is a wiring bug.
    static func requireTenant() throws -> Tenant {
        guard let tenant = current?.tenant else { throw GatewayProblem.internalError() }
        return tenant
    }

    static var logger: Logger {
        current?.logger ?? Logger(label: "gateway")
    }
}
