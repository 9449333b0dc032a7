import Foundation
import GatewayAPI
import GatewayCore

/// My account (issue 63 §7): translate, the ``AccountService`` decides.
extension GatewayAPIHandler {
    func getAccount(_ input: Operations.GetAccount.Input) async throws -> Operations.GetAccount.Output {
        let (service, caller) = try accountCaller()
        let overview = try await service.overview(caller)
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.accountView(overview))))
    }

    func sendAccountIdentifierCode(
        _ input: Operations.SendAccountIdentifierCode.Input
    ) async throws -> Operations.SendAccountIdentifierCode.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (service, caller) = try accountCaller()
        let tenant = try RequestScope.requireTenant()
        let locale = LoginTexts.negotiate(
            uiLocales: nil, acceptLanguage: RequestScope.header(.acceptLanguage), tenantLanguages: [])
        let channel = Self.channel(body._type.rawValue)
        let value = try await service.sendCode(
            channel, to: body.value, caller: caller, settings: tenant.journeys, locale: locale)
        return .accepted(
            .init(headers: .init(cacheControl: "no-store"), body: .json(.init(_type: body._type, value: value))))
    }

    func verifyAccountIdentifier(
        _ input: Operations.VerifyAccountIdentifier.Input
    ) async throws -> Operations.VerifyAccountIdentifier.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (service, caller) = try accountCaller()
        let overview = try await service.verify(
            Self.channel(body._type.rawValue), value: body.value, code: body.code, caller: caller)
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.accountView(overview))))
    }

    func removeAccountIdentifier(
        _ input: Operations.RemoveAccountIdentifier.Input
    ) async throws -> Operations.RemoveAccountIdentifier.Output {
        let (service, caller) = try accountCaller()
        let tenant = try RequestScope.requireTenant()
        let overview = try await service.remove(
            Self.channel(input.path._type.rawValue), caller: caller, settings: tenant.journeys)
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.accountView(overview))))
    }

    func changeAccountPassword(
        _ input: Operations.ChangeAccountPassword.Input
    ) async throws -> Operations.ChangeAccountPassword.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (service, caller) = try accountCaller()
        try await service.changePassword(current: body.currentPassword, new: body.newPassword, caller: caller)
        return .noContent(.init())
    }

    func endAccountSession(_ input: Operations.EndAccountSession.Input) async throws -> Operations.EndAccountSession.Output {
        let id = input.path.sessionId
        let (service, caller) = try accountCaller()
        guard id.utf8.count <= 128, !ControlCharacters.held(in: id) else { throw AccountError.sessionNotFound }
        try await service.endSession(id, caller: caller)
        return .noContent(.init())
    }

    func renameAccountPasskey(
        _ input: Operations.RenameAccountPasskey.Input
    ) async throws -> Operations.RenameAccountPasskey.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (service, caller) = try accountCaller()
        let overview = try await service.renamePasskey(input.path.passkeyId, name: body.name, caller: caller)
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.accountView(overview))))
    }

    func removeAccountPasskey(
        _ input: Operations.RemoveAccountPasskey.Input
    ) async throws -> Operations.RemoveAccountPasskey.Output {
        let (service, caller) = try accountCaller()
        let tenant = try RequestScope.requireTenant()
        let overview = try await service.removePasskey(input.path.passkeyId, caller: caller, settings: tenant.journeys)
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(Self.accountView(overview))))
    }

    func deleteAccount(_ input: Operations.DeleteAccount.Input) async throws -> Operations.DeleteAccount.Output {
        guard case .json(let body) = input.body else { throw GatewayProblem.invalidRequest("Expected a JSON body.") }
        let (service, caller) = try accountCaller()
        _ = try await service.delete(password: body.password, caller: caller)
        return .noContent(.init())
    }

    /// The account service and who calls it: the token's tenant, user, client and sign-in time.
    private func accountCaller() throws -> (AccountService, AccountCaller) {
        let tenant = try RequestScope.requireTenant()
        let principal = try RequestScope.requirePrincipal()
        guard let service = services.account else { throw AccountError.notFound }
        return (
            service,
            AccountCaller(
                tenantID: tenant.id, subject: principal.subject, clientID: principal.clientID,
                authTime: principal.authTime, address: RequestScope.current?.clientAddress)
        )
    }

    private static func channel(_ type: String) -> JourneySettings.Channel { type == "phone" ? .phone : .email }

    /// The account as answered: never a hash or a secret, only whether they are there.
    static func accountView(_ overview: AccountOverview) -> Components.Schemas.Account {
        let user = overview.user
        return Components.Schemas.Account(
            sub: user.subject, username: user.username, name: user.name, email: user.email,
            emailVerified: user.emailVerified, phone: user.phone, phoneVerified: user.phoneVerified,
            password: overview.hasPassword, totp: user.totpSecret != nil,
            sessions: overview.sessions.map {
                .init(id: $0.id, clientId: $0.clientID, createdAt: $0.createdAt, authTime: $0.authTime, expiresAt: $0.expiresAt)
            },
            passkeys: overview.passkeys.map {
                .init(
                    id: Base64URL.encode($0.credentialID), name: $0.name, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt,
                    backedUp: $0.backedUp)
            })
    }
}
