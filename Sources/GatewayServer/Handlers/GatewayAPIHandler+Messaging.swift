import Foundation
import GatewayAPI
import GatewayCore

/// Contacts, messages, the inbox and blocks (issue 31): translate, the ``MessagingService`` decides.
extension GatewayAPIHandler {
    func putContacts(_ input: Operations.PutContacts.Input) async throws -> Operations.PutContacts.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (tenant, user) = try signedInUser()
        let stored = try await services.userState.messaging.replaceContacts(
            body.contacts.map { ContactUpload(id: $0.id, name: $0.name, email: $0.email) }, tenantID: tenant, userID: user)
        return .ok(.init(body: .json(Self.contactList(stored, withKinds: true))))
    }

    func listContacts(_ input: Operations.ListContacts.Input) async throws -> Operations.ListContacts.Output {
        let (tenant, user) = try signedInUser()
        let contacts = try await services.userState.messaging.contacts(tenantID: tenant, userID: user)
        return .ok(.init(body: .json(Self.contactList(contacts, withKinds: true))))
    }

    func listMiniAppContacts(_ input: Operations.ListMiniAppContacts.Input) async throws
        -> Operations.ListMiniAppContacts.Output
    {
        try RequestValidation.identifier(input.path.id, "id")
        let (owner, _, state) = try userStateContext(miniAppID: input.path.id)
        return .ok(.init(body: .json(Self.contactList(try await state.messaging.contacts(for: owner), withKinds: false))))
    }

    func sendMessage(_ input: Operations.SendMessage.Input) async throws -> Operations.SendMessage.Output {
        try RequestValidation.identifier(input.path.id, "id")
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let key = try RequestValidation.idempotencyKey()
        let (owner, _, state) = try userStateContext(miniAppID: input.path.id)
        let message = body.message
        let outcomes = try await state.messaging.send(
            MessageContent(
                text: message.text, image: message.image, caption: message.caption, action: message.action,
                bannerMessage: message.bannerMessage), to: body.to, from: owner, idempotencyKey: key)
        return .ok(
            .init(
                body: .json(
                    .init(
                        sentTo: outcomes.filter { $0.outcome == .sent }.map(\.id),
                        outcomes: outcomes.map { .init(id: $0.id, outcome: .init(rawValue: $0.outcome.rawValue)!) }))))
    }

    func listInbox(_ input: Operations.ListInbox.Input) async throws -> Operations.ListInbox.Output {
        try RequestValidation.range(input.query.limit, 1...MessagingService.maxPageSize, "limit")
        var cursor: InboxCursor?
        if let token = input.query.cursor {
            guard let parsed = InboxCursor(token: token) else {
                throw GatewayProblem.invalidRequest("`cursor` is the `next` of an earlier page.")
            }
            cursor = parsed
        }
        let (tenant, user) = try signedInUser()
        let page = try await services.userState.messaging.inbox(
            tenantID: tenant, userID: user, cursor: cursor, limit: input.query.limit)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.items.map { item in
                            .init(
                                id: item.id, from: .init(id: item.senderID, name: item.senderName),
                                miniAppId: item.miniAppID, message: Self.messageView(item.content), read: item.read,
                                createdAt: item.createdAt)
                        }, unread: page.unread, next: page.next?.token))))
    }

    func markInboxMessageRead(_ input: Operations.MarkInboxMessageRead.Input) async throws
        -> Operations.MarkInboxMessageRead.Output
    {
        try RequestValidation.opaqueID(input.path.messageId, "messageId")
        let (tenant, user) = try signedInUser()
        try await services.userState.messaging.markRead(tenantID: tenant, userID: user, messageID: input.path.messageId)
        return .noContent(.init())
    }

    func deleteInboxMessage(_ input: Operations.DeleteInboxMessage.Input) async throws
        -> Operations.DeleteInboxMessage.Output
    {
        try RequestValidation.opaqueID(input.path.messageId, "messageId")
        let (tenant, user) = try signedInUser()
        try await services.userState.messaging.deleteMessage(
            tenantID: tenant, userID: user, messageID: input.path.messageId)
        return .noContent(.init())
    }

    func blockUser(_ input: Operations.BlockUser.Input) async throws -> Operations.BlockUser.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (tenant, user) = try signedInUser()
        try await services.userState.messaging.block(body.id, tenantID: tenant, userID: user)
        return .noContent(.init())
    }

    func listBlockedUsers(_ input: Operations.ListBlockedUsers.Input) async throws -> Operations.ListBlockedUsers.Output {
        let (tenant, user) = try signedInUser()
        let blocked = try await services.userState.messaging.blocked(tenantID: tenant, userID: user)
        return .ok(.init(body: .json(.init(items: blocked.map { .init(id: $0.userID, blockedAt: $0.blockedAt) }))))
    }

    func unblockUser(_ input: Operations.UnblockUser.Input) async throws -> Operations.UnblockUser.Output {
        let id = input.path.userId
        guard RequestValidation.matches(#"^[A-Za-z0-9._~-]{1,255}$"#, id) else {
            throw GatewayProblem.invalidRequest("`userId` must be 1-255 characters of A-Z, a-z, 0-9, '.', '_', '~' and '-'.")
        }
        let (tenant, user) = try signedInUser()
        try await services.userState.messaging.unblock(id, tenantID: tenant, userID: user)
        return .noContent(.init())
    }

    /// Contacts as answered: the SDK's shape, with `isUser` for the host app.
    static func contactList(_ contacts: [Contact], withKinds: Bool) -> Components.Schemas.ContactList {
        .init(contacts: contacts.map { .init(id: $0.id, name: $0.name, email: $0.email, isUser: withKinds ? $0.isUser : nil) })
    }

    static func messageView(_ content: MessageContent) -> Components.Schemas.MessageToContact {
        .init(
            text: content.text, image: content.image, caption: content.caption, action: content.action,
            bannerMessage: content.bannerMessage)
    }
}
