import Foundation
import GatewayAPI
import GatewayCore
import OpenAPIRuntime

/// OpenID CIBA (issue 50): the backchannel authentication endpoint for clients, and the
/// signed-in user's sign-in requests for the host app. Translate; the authorization server decides.
extension GatewayAPIHandler {
    func postBackchannelAuthentication(
        _ input: Operations.PostBackchannelAuthentication.Input
    ) async throws -> Operations.PostBackchannelAuthentication.Output {
        let tenant = try RequestScope.requireTenant()
        guard case .urlEncodedForm(let form) = input.body else { throw OAuthError.invalidRequest("expected a form") }
        let issuer = services.issuerBase.issuer(tenantID: tenant.id)
        let (clientID, secret) = Self.clientCredentials(form.clientId, form.clientSecret)
        let assertion = try form.clientAssertion.map {
            try ClientAssertion(
                type: form.clientAssertionType, jwt: $0,
                audiences: [issuer + "/oauth2/bc-authorize", issuer + "/oauth2/token", issuer])
        }
        let client = try await services.auth.authenticateClient(
            tenantID: tenant.id, clientID: clientID, secret: secret, assertion: assertion, requireConfidential: true)
        var hintSubject: String?
        if let token = form.loginHintToken, !token.isEmpty, form.loginHint == nil, form.idTokenHint == nil {
            guard token.utf8.count <= BackchannelRules.hintMaxLength else {
                throw OAuthError.invalidRequest("the hint is longer than \(BackchannelRules.hintMaxLength) bytes")
            }
            hintSubject = try await LoginHintToken.subject(
                token, tenantID: tenant.id, trusted: services.federation.trusted, now: services.auth.clock.now())
        }
        let request = try await services.auth.authenticateBackchannel(
            BackchannelAuthenticationForm(
                scope: form.scope, loginHint: form.loginHint, idTokenHint: form.idTokenHint,
                loginHintToken: form.loginHintToken, bindingMessage: form.bindingMessage, userCode: form.userCode,
                requestedExpiry: form.requestedExpiry, acrValues: form.acrValues,
                clientNotificationToken: form.clientNotificationToken),
            client: client, issuer: issuer, address: RequestScope.current?.clientAddress, hintSubject: hintSubject,
            settings: tenant.ciba, pollInterval: services.backchannelPollInterval)
        services.metrics.recordBackchannel(tenant: tenant.id, client: client.clientID, event: "requested")
        await notify { try await $0.announce(request, clientName: client.clientID) }
        await record(BackchannelTrail.requested(request, requestID: RequestScope.current?.requestID))
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(
                    .init(
                        authReqId: request.id,
                        expiresIn: Int(request.expiresAt.timeIntervalSince(request.requestedAt).rounded()),
                        interval: request.interval))))
    }

    func listSignInRequests(
        _ input: Operations.ListSignInRequests.Input
    ) async throws -> Operations.ListSignInRequests.Output {
        let (tenant, user) = try signedInUser()
        let pending = try await services.auth.backchannel.pending(tenantID: tenant, subject: user)
        let items = pending.map { request in
            Components.Schemas.SignInRequest(
                id: request.id, clientId: request.clientID, clientName: request.clientID,
                bindingMessage: request.bindingMessage, scopes: request.scopes, requestedAt: request.requestedAt,
                expiresAt: request.expiresAt, address: request.address, acrValues: request.acrValues)
        }
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(.init(items: items))))
    }

    func approveSignInRequest(
        _ input: Operations.ApproveSignInRequest.Input
    ) async throws -> Operations.ApproveSignInRequest.Output {
        let step: Components.Schemas.SignInApproval? =
            switch input.body {
            case .json(let body): body
            case nil: nil
            }
        try await answerSignInRequest(
            input.path.id, approve: true, totp: step?.totp, password: step?.password,
            passkey: try step?.passkey.map(signInRequestPasskey))
        return .noContent(.init())
    }

    func startSignInRequestPasskey(
        _ input: Operations.StartSignInRequestPasskey.Input
    ) async throws -> Operations.StartSignInRequestPasskey.Output {
        try RequestValidation.opaqueID(input.path.id, "id")
        let principal = try RequestScope.requirePrincipal()
        let tenant = try RequestScope.requireTenant()
        guard let ceremonies = services.passkeys else {
            throw BackchannelError.stepUpRequired("this gateway keeps no passkeys: step up with the TOTP code or password")
        }
        let (options, expiresAt) = try await services.auth.beginBackchannelPasskey(
            tenantID: tenant.id, subject: principal.subject, id: input.path.id, ceremonies: ceremonies,
            party: relyingParty(of: tenant))
        let json: OpenAPIObjectContainer = try Self.decode(Array(try JSONEncoder().encode(options)))
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(.init(options: .init(additionalProperties: json), expiresAt: expiresAt))))
    }

    /// The approval's passkey member as the authorization server checks it: the credential
    /// (nil for an object that is none, or longer than 8 KiB of JSON: refused as a wrong passkey
    /// is, 403 `step_up_failed`) with the tenant's relying party.
    private func signInRequestPasskey(
        _ given: Components.Schemas.SignInApproval.PasskeyPayload
    ) throws -> BackchannelPasskeyAnswer {
        guard let ceremonies = services.passkeys else { throw BackchannelError.stepUpFailed }
        let json = try? JSONEncoder().encode(given.additionalProperties)
        let credential = json.flatMap {
            $0.count <= JourneyEngine.maximumCredentialLength
                ? try? JSONDecoder().decode(AuthenticationResponseJSON.self, from: $0) : nil
        }
        return BackchannelPasskeyAnswer(
            credential: credential, ceremonies: ceremonies, party: relyingParty(of: try RequestScope.requireTenant()))
    }

    /// The tenant's WebAuthn relying party: its settings over its issuer.
    func relyingParty(of tenant: Tenant) -> RelyingParty {
        tenant.passkeys.relyingParty(issuer: services.issuerBase.issuer(tenantID: tenant.id))
    }

    func denySignInRequest(
        _ input: Operations.DenySignInRequest.Input
    ) async throws -> Operations.DenySignInRequest.Output {
        try await answerSignInRequest(input.path.id, approve: false, totp: nil, password: nil, passkey: nil)
        return .noContent(.init())
    }

    private func answerSignInRequest(
        _ id: String, approve: Bool, totp: String?, password: String?, passkey: BackchannelPasskeyAnswer?
    ) async throws {
        try RequestValidation.opaqueID(id, "id")
        let principal = try RequestScope.requirePrincipal()
        let tenant = try RequestScope.requireTenant()
        let (request, answer): (BackchannelRequest, BackchannelAnswer)
        do {
            (request, answer) = try await services.auth.answerBackchannel(
                tenantID: tenant.id, subject: principal.subject, id: id, approve: approve,
                authTime: principal.authTime, totp: totp, password: password, passkey: passkey,
                address: RequestScope.current?.clientAddress, settings: tenant.ciba)
        } catch BackchannelError.passkeyCounterWentBack(let stored, let received) {
            await record(
                BackchannelTrail.passkeyRefused(
                    tenantID: tenant.id, subject: principal.subject, stored: stored, received: received,
                    address: RequestScope.current?.clientAddress, requestID: RequestScope.current?.requestID,
                    at: services.clock.now()))
            throw BackchannelError.passkeyCounterWentBack(stored: stored, received: received)
        }
        services.metrics.recordBackchannel(
            tenant: tenant.id, client: request.clientID, event: approve ? "approved" : "denied")
        await notify { try await $0.withdraw(request, approved: approve) }
        await record(
            BackchannelTrail.answered(
                request, approved: approve, acr: answer.acr, at: answer.at,
                address: RequestScope.current?.clientAddress, requestID: RequestScope.current?.requestID))
        if request.mode == .ping, let pings = services.backchannelPings,
            let client = try await services.auth.client(tenantID: tenant.id, clientID: request.clientID),
            let endpoint = client.backchannelNotificationEndpoint
        {
            // The answer does not wait for the client's endpoint (up to 2 s): the ping goes on
            // its own, counted and logged; a lost one costs the client a poll.
            let (settings, logger) = (tenant.ciba, RequestScope.logger)
            Task {
                if case .refused(let refusal) = await pings.ping(request, endpoint: endpoint, settings: settings) {
                    logger.warning("CIBA ping not sent to client \(request.clientID)'s notification endpoint: \(refusal)")
                }
            }
        }
    }

    /// Queues a sign-in request's push; a failure leaves the request in the host app's list
    /// (logged, never failing the call).
    private func notify(_ push: (SignInRequestPush) async throws -> Int) async {
        guard let pushes = services.userState.signInPushes else { return }
        do {
            _ = try await push(pushes)
        } catch {
            RequestScope.logger.warning("sign-in request push not queued: \(error)")
        }
    }

    /// Appends a backchannel record to the tenant's trail; a failure is logged, never failing the call.
    private func record(_ draft: AuditDraft) async {
        guard let audit = services.audit else { return }
        do {
            _ = try await audit.append(draft)
        } catch {
            RequestScope.logger.warning("sign-in request not recorded in the audit trail: \(error)")
        }
    }
}
