import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The operator console's operations (issue 49): sign-in through the operator realm with the
/// built-in `console` client, a server-side session, and pages rendered from what
/// ``AdminService`` answers for the session's operator, so the console shows exactly what
/// the admin API would let it read.
extension AdminAPIHandler {
    /// A signed-in console request: the session's cookie id, its record, and the call the
    /// admin service authorizes.
    struct ConsoleCall {
        var id: String
        var session: ConsoleSessions.Session
        var call: AdminCall

        /// A full console page for this session: its operator and its CSRF token in the header.
        func page(_ texts: ConsoleTexts, title: String, section: ConsolePage.Section?, body: String) -> String {
            ConsolePage.page(
                texts, title: title, section: section, operatorName: call.session.caller.name, csrf: session.csrf,
                auditLink: auditLink, body: body)
        }

        /// Where the header's Audit link goes: the whole trail for `audit:read` platform-wide,
        /// else the first tenant's chain the bindings may read; nil: no link (issue 62 §3, no
        /// link to a page the role cannot open).
        var auditLink: String? {
            let read = AdminPermission(.read, .audit)
            let bindings = call.session.bindings
            if AdminAuthorizer.decide(read, tenantID: nil, bindings: bindings) == .allowed { return "/console/audit" }
            let tenant = bindings.compactMap(\.tenantID).sorted().first {
                AdminAuthorizer.decide(read, tenantID: $0, bindings: bindings) == .allowed
            }
            return tenant.map { "/console/audit?tenant=" + URLQuery.encode($0) }
        }
    }

    func consoleOverview(_ input: Operations.ConsoleOverview.Input) async throws -> Operations.ConsoleOverview.Output {
        try AdminInput.check(input.query.cursor, max: 63, "cursor", empty: true)
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        // 50 tenants a page, by id: a platform of 1,000 tenants reads as pages, not one table.
        let listed = try await service.listTenants(
            signedIn.call, cursor: input.query.cursor.flatMap { $0.isEmpty ? nil : $0 }, limit: 50)
        let tenants = listed.items
        // The last hour of each listed tenant, as every replica counted it; a cache out of
        // reach leaves the figures blank, never the page.
        let traffic =
            (try? await TenantTraffic.summaries(sharedCache, tenants: tenants.map(\.id), now: clock.now())) ?? [:]
        let backlog = try await service.pushBacklog(signedIn.call, tenantIDs: tenants.map(\.id))
        let rows = tenants.map { tenant in
            let pushes =
                AdminAuthorizer.decide(
                    AdminPermission(.read, .notification), tenantID: tenant.id, bindings: signedIn.call.session.bindings
                )
                    == .allowed
                ? "<a href=\"/console/t/\(tenant.id)/notifications\">"
                    + "\(ConsolePage.escape(texts.format(.backlog, String(backlog[tenant.id] ?? 0))))</a>"
                : "-"
            return [
                "<a href=\"/console/t/\(tenant.id)\">\(ConsolePage.escape(tenant.id))</a>",
                ConsolePage.escape(tenant.displayName),
                ConsolePage.escape(tenant.status.rawValue), String(tenant.configVersion),
            ] + ConsolePage.trafficCells(traffic[tenant.id]) + [pushes]
        }
        // Rollouts of this page's tenants the operator may read, linked to their pages: one read.
        let now = clock.now()
        let policies = try await service.readableReleasePolicies(
            signedIn.call, tenantIDs: Set(tenants.map(\.id))
        ).sorted { ($0.tenantID, $0.miniAppID) < ($1.tenantID, $1.miniAppID) }
        let rollouts = policies.map { policy in
            let view = ReleasePolicyView(policy, now: now)
            let page = "/console/t/\(policy.tenantID)/miniapps/\(URLQuery.encode(policy.miniAppID))/release"
            return [
                ConsolePage.escape(policy.tenantID),
                "<a href=\"\(ConsolePage.escape(page))\">\(ConsolePage.escape(policy.miniAppID))</a>",
                ConsolePage.escape(view.stable ?? texts[.platformLatest]),
                ConsolePage.escape(view.candidate?.version ?? "-"),
                ConsolePage.escape(view.candidate?.state ?? "-"),
                ConsolePage.escape(view.candidate.map { "\($0.shareNow) %" } ?? "-"),
            ]
        }
        let roles = signedIn.call.session.bindings.map(\.label).sorted()
        let body =
            "<p>\(ConsolePage.escape(texts[.roles])): \(ConsolePage.escape(roles.isEmpty ? "-" : roles.joined(separator: ", ")))</p>"
            + (rows.isEmpty
                ? "<p>\(ConsolePage.escape(texts[.noTenants]))</p>"
                : ConsolePage.table(
                    caption: texts[.tenants],
                    headers: [
                        texts[.tenant], texts[.displayName], texts[.status], texts[.revision], texts[.perMinute],
                        texts[.errorShare], texts[.latencyP95], texts[.pushBacklog],
                    ], rows: rows))
            + (listed.next.map { next in
                "<p><a href=\"/console?cursor=\(URLQuery.encode(next))\">\(ConsolePage.escape(texts[.moreTenants]))</a></p>"
            } ?? "")
            + (rollouts.isEmpty
                ? ""
                : ConsolePage.table(
                    caption: texts[.rollouts],
                    headers: [
                        texts[.tenant], texts[.miniApp], texts[.stable], texts[.candidate], texts[.state],
                        texts[.share],
                    ], rows: rollouts))
        let html = signedIn.page(
            texts, title: texts[.overview], section: .overview,
            body: body + Self.timeZoneForm(texts, csrf: signedIn.session.csrf))
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }

    func consoleStartSignIn(
        _ input: Operations.ConsoleStartSignIn.Input
    ) async throws -> Operations.ConsoleStartSignIn.Output {
        let issuer = AdminScope.current.issuer
        let state = Base64URL.random(byteCount: 32)
        let verifier = Base64URL.random(byteCount: 32)
        let redirectURI = OperatorRealmClient.consoleRedirect(issuer: issuer)
        try await console.begin(state: state, .init(verifier: verifier, redirectURI: redirectURI))
        let query = [
            ("response_type", "code"), ("client_id", OperatorRealmClient.console.id), ("redirect_uri", redirectURI),
            ("state", state), ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
        ].map { "\($0)=\(URLQuery.encode($1))" }.joined(separator: "&")
        return .seeOther(
            .init(
                headers: .init(
                    location: "/admin/oauth2/authorize?" + query, cacheControl: "no-store",
                    setCookie: ConsoleCookie.start(issuer: issuer).set(state))))
    }

    func consoleCallback(_ input: Operations.ConsoleCallback.Input) async throws -> Operations.ConsoleCallback.Output {
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let issuer = AdminScope.current.issuer
        let failed = { (reason: String) -> Operations.ConsoleCallback.Output in
            .badRequest(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(
                        .init(
                            ConsolePage.message(
                                texts, title: texts[.signInFailed], text: reason,
                                link: (Self.signInPath, texts[.signInAgain]))))))
        }
        let q = input.query
        for (value, max, name) in [
            (q.code, 100, "code"), (q.state, 64, "state"), (q.iss, 300, "iss"), (q.error, 64, "error"),
            (q.errorDescription, 300, "error_description"),
        ] {
            try AdminInput.check(value, max: max, name, empty: true)
        }
        // The console's own words: the URL's error_description is anyone's text.
        if let error = q.error { return failed(texts[error == "access_denied" ? .callbackDenied : .callbackError]) }
        // The state must be the one this browser started (its cookie), and still remembered.
        guard let state = q.state, ConsoleCookie.start(issuer: issuer).value(in: AdminScope.current.headers) == state,
            let start = try await console.finish(state: state)
        else { return failed(texts[.callbackNotStarted]) }
        guard q.iss == nil || q.iss == issuer, let code = q.code else { return failed(texts[.callbackNoCode]) }
        let issued: OperatorIssuedTokens
        do {
            issued = try await authenticator.token(
                OperatorTokenRequest(
                    grantType: "authorization_code", clientID: OperatorRealmClient.console.id, code: code,
                    codeVerifier: start.verifier, redirectURI: start.redirectURI))
        } catch is OperatorTokenError {
            return failed(texts[.callbackCodeUsed])
        }
        let id = try await console.create(
            .init(
                accessToken: issued.accessToken,
                accessExpiresAt: clock.now().addingTimeInterval(TimeInterval(issued.expiresIn)),
                refreshToken: issued.refreshToken, csrf: Base64URL.random(byteCount: 32)))
        return .seeOther(
            .init(
                headers: .init(
                    location: "/console", setCookie: ConsoleCookie.session(issuer: issuer).set(id),
                    cacheControl: "no-store")))
    }

    func consoleSignOut(_ input: Operations.ConsoleSignOut.Input) async throws -> Operations.ConsoleSignOut.Output {
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let issuer = AdminScope.current.issuer
        let cookie = ConsoleCookie.session(issuer: issuer)
        if case .urlEncodedForm(let form) = input.body {
            try AdminInput.check(form.csrfToken, max: 64, "csrf_token", empty: true)
        }
        guard case .urlEncodedForm(let form) = input.body, let id = cookie.value(in: AdminScope.current.headers),
            let session = try await console.load(id: id), let token = form.csrfToken,
            ConstantTime.equals(token, session.csrf)
        else {
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .textHtmlCharsetUtf8(
                        .init(
                            ConsolePage.message(texts, title: texts[.refused], text: texts[.refusedFormText], link: nil)
                        ))))
        }
        try await console.end(id: id)
        return .seeOther(.init(headers: .init(location: Self.signInPath, setCookie: cookie.cleared)))
    }

    func consoleAudit(_ input: Operations.ConsoleAudit.Input) async throws -> Operations.ConsoleAudit.Output {
        // Bounds first: a value past the contract's is 400 whoever asks.
        let bounds = input.query
        for (value, max, name) in [
            (bounds.tenant, 63, "tenant"), (bounds._operator, 200, "operator"), (bounds.resource, 40, "resource"),
            (bounds.verb, 16, "verb"), (bounds.cursor, 19, "cursor"),
        ] {
            try AdminInput.check(value, max: max, name, empty: true)
        }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let q = input.query
        let blank = { (value: String?) in value.flatMap { $0.isEmpty ? nil : $0 } }
        let query = AuditQuery(
            chain: blank(q.tenant), subject: blank(q._operator),
            resourceType: blank(q.resource).flatMap(AdminResource.init(rawValue:)),
            verb: blank(q.verb).flatMap(AdminVerb.init(rawValue:)), cursor: blank(q.cursor).flatMap { Int64($0) },
            limit: 50)
        let page: AuditPage
        do {
            page = try await service.audit(signedIn.call, query: query)
        } catch let error as AdminError {
            switch error {
            case .forbidden, .tenantNotFound:
                return .forbidden(
                    .init(
                        headers: .init(cacheControl: "no-store"),
                        body: .textHtmlCharsetUtf8(
                            .init(
                                ConsolePage.message(
                                    texts, title: texts[.refused], text: texts.refusal(error),
                                    link: ("/console", texts[.overview]))))))
            default: throw error
            }
        }
        let rows = page.items.map { record in
            [
                "<a href=\"/console/audit/\(record.id)\">\(texts.time(record.time))</a>",
                ConsolePage.escape(record.chain), ConsolePage.escape(record.actor.name),
                ConsolePage.escape(record.note?.action ?? record.verb.rawValue),
                ConsolePage.escape(
                    [record.resource.type.rawValue, record.resource.id].compactMap { $0 }.joined(separator: " ")),
                ConsolePage.escape(String(record.outcome.status) + (record.outcome.code.map { " \($0)" } ?? "")),
                ConsolePage.escape(record.note?.summary ?? record.note?.reason ?? ""),
            ]
        }
        let body =
            Self.auditFilters(texts, q)
            + (rows.isEmpty
                ? "<p>\(ConsolePage.escape(texts[.noRecords]))</p>"
                : ConsolePage.table(
                    caption: texts[.audit],
                    headers: [
                        texts[.time], texts[.chain], texts[.actor], texts[.verb], texts[.resource], texts[.outcome],
                        texts[.summary],
                    ], rows: rows))
            + (page.next.map { next in
                let link = Self.auditLink(q, cursor: String(next))
                return "<p><a href=\"\(ConsolePage.escape(link))\">\(ConsolePage.escape(texts[.next]))</a></p>"
            } ?? "")
        let html = signedIn.page(texts, title: texts[.audit], section: .audit, body: body)
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.contentSecurityPolicy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }

    func consoleStylesheet(
        _ input: Operations.ConsoleStylesheet.Input
    ) async throws -> Operations.ConsoleStylesheet.Output {
        .ok(.init(headers: .init(cacheControl: "public, max-age=86400"), body: .textCss(.init(ConsoleStylesheet.text))))
    }

    static let signInPath = "/console/sign-in"

    /// The session the cookie names, its access token renewed when it is about to expire, and
    /// the call it makes; nil (and the record ended) when there is none or its sign-in ended.
    func consoleCall() async throws -> ConsoleCall? {
        let scope = AdminScope.current
        let issuer = scope.issuer
        guard let id = ConsoleCookie.session(issuer: issuer).value(in: scope.headers),
            var session = try await console.load(id: id)
        else { return nil }
        if session.accessExpiresAt <= clock.now().addingTimeInterval(30) {
            guard let refresh = session.refreshToken,
                let issued = try? await authenticator.token(
                    OperatorTokenRequest(
                        grantType: "refresh_token", clientID: OperatorRealmClient.console.id, refreshToken: refresh))
            else {
                try await console.end(id: id)
                return nil
            }
            session.accessToken = issued.accessToken
            session.accessExpiresAt = clock.now().addingTimeInterval(TimeInterval(issued.expiresIn))
            session.refreshToken = issued.refreshToken
            try await console.save(id: id, session)
        }
        guard let operatorSession = try await authenticator.session(bearer: session.accessToken) else {
            try await console.end(id: id)
            return nil
        }
        return ConsoleCall(
            id: id, session: session,
            call: AdminCall(
                session: operatorSession, requestID: scope.requestID, address: scope.address,
                userAgent: scope.headers[.userAgent].map { String($0.prefix(300)) }))
    }

    /// The audit page's filter form (GET, so it works without script), with the current values.
    static func auditFilters(_ texts: ConsoleTexts, _ q: Operations.ConsoleAudit.Input.Query) -> String {
        let field = { (name: String, label: String, value: String?) in
            "<label>\(ConsolePage.escape(label))<input name=\"\(name)\" value=\"\(ConsolePage.escape(value ?? ""))\"></label>"
        }
        let choice = { (name: String, label: String, values: [String], current: String?) in
            let options = ([""] + values).map { value in
                "<option value=\"\(value)\"\(value == (current ?? "") ? " selected" : "")>"
                    + "\(ConsolePage.escape(value.isEmpty ? texts[.anyValue] : value))</option>"
            }.joined()
            return "<label>\(ConsolePage.escape(label))<select name=\"\(name)\">\(options)</select></label>"
        }
        return "<form method=\"get\" action=\"/console/audit\" class=\"filters\">"
            + field("tenant", texts[.chain], q.tenant) + field("operator", texts[.operatorName], q._operator)
            + choice("resource", texts[.resource], AdminResource.allCases.map(\.rawValue), q.resource)
            + choice("verb", texts[.verb], AdminVerb.allCases.map(\.rawValue), q.verb)
            + "<button type=\"submit\">\(ConsolePage.escape(texts[.filter]))</button></form>"
    }

    /// The audit page with the same filters at `cursor`.
    static func auditLink(_ q: Operations.ConsoleAudit.Input.Query, cursor: String) -> String {
        let pairs = [("tenant", q.tenant), ("operator", q._operator), ("resource", q.resource), ("verb", q.verb)]
            .compactMap { name, value in value.flatMap { $0.isEmpty ? nil : "\(name)=\(URLQuery.encode($0))" } }
        return "/console/audit?" + (pairs + ["cursor=\(cursor)"]).joined(separator: "&")
    }
}
