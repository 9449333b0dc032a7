import Foundation

/// One courier message as operators read it: the recipient masked, never the text.
public struct CourierMessageDocument: Sendable, Codable, Equatable {
    public var id: String
    public var channel: String
    public var purpose: String
    public var recipient: String
    public var state: String
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(_ summary: CourierMessageSummary) {
        id = summary.id
        channel = summary.channel.rawValue
        purpose = summary.purpose
        recipient = summary.recipient
        state = summary.state.rawValue
        attempts = summary.attempts
        lastError = summary.lastError
        createdAt = summary.createdAt
        updatedAt = summary.updatedAt
    }
}

/// The courier outbox on the operator plane (issue 63 §4).
extension AdminService {
    /// One page of the tenant's courier messages, newest first, in `state` when given
    /// (`notification:read`: codes to people are notifications of another channel).
    public func courierMessages(
        _ call: AdminCall, tenantID: String, state: CourierState?, cursor: String?, limit: Int
    ) async throws -> (items: [CourierMessageDocument], next: String?) {
        try await authorize(call, AdminPermission(.read, .notification), tenantID: tenantID)
        _ = try await requireTenant(tenantID)
        try Self.checkLimit(limit)
        if let cursor, CourierCursor.parse(cursor) == nil { throw AdminError.badRequest("cursor is a page's next") }
        let found = try await courier.messages(tenantID: tenantID, state: state, before: cursor, limit: limit + 1)
        let page = Array(found.prefix(limit))
        return (page.map(CourierMessageDocument.init), found.count > limit ? page.last?.cursor : nil)
    }
}
