import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The console's release page (issue 49): the policy, its actions behind a confirmation, and
/// the admin API's `If-Match` rule, so a second operator acting on a policy that changed is
/// told who changed it and when, and sees the fresh state.
extension AdminAPIHandler {
    func consoleRelease(_ input: Operations.ConsoleRelease.Input) async throws -> Operations.ConsoleRelease.Output {
        try Self.checkConsolePath(tenant: input.path.tenant, miniApp: input.path.miniapp)
        try AdminInput.check(input.query.done, max: 16, "done", empty: true)
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let (tenantID, miniAppID) = (input.path.tenant, input.path.miniapp)
        let notice = input.query.done.flatMap(ConsoleReleasePage.Action.init(rawValue:)).map {
            (texts.format(.done, texts[ConsoleReleasePage.label($0)]), false)
        }
        switch try await releasePage(signedIn, texts, tenantID: tenantID, miniAppID: miniAppID, notice: notice) {
        case .page(let html):
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.framingPolicy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .refused(let html):
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.framingPolicy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .missing(let html):
            return .notFound(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.framingPolicy),
                    body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    func consoleReleaseAction(
        _ input: Operations.ConsoleReleaseAction.Input
    ) async throws -> Operations.ConsoleReleaseAction.Output {
        try Self.checkConsolePath(tenant: input.path.tenant, miniApp: input.path.miniapp)
        guard case .urlEncodedForm(let form) = input.body else { throw AdminError.badRequest("a form body") }
        for (value, max, name) in [
            (form.csrfToken, 64, "csrf_token"), (form.revision, 19, "revision"), (form.percent, 8, "percent"),
            (form.version, 64, "version"), (form.useInstead, 64, "use_instead"), (form.reason, 500, "reason"),
            (form.confirm, 8, "confirm"),
        ] {
            try AdminInput.check(value, max: max, name, empty: true)
        }
        guard let actionName = form.action, let action = ConsoleReleasePage.Action(rawValue: actionName.rawValue),
            let revision = form.revision.flatMap({ Int64($0) })
        else { throw AdminError.badRequest("action and revision are required") }
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let (tenantID, miniAppID) = (input.path.tenant, input.path.miniapp)
        let html = { (body: String, title: String) in
            signedIn.page(texts, title: title, section: nil, body: body)
        }
        guard let token = form.csrfToken, ConstantTime.equals(token, signedIn.session.csrf) else {
            return .forbidden(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.framingPolicy),
                    body: .textHtmlCharsetUtf8(
                        .init(
                            html(
                                "<p class=\"error\" role=\"alert\">\(ConsolePage.escape(texts[.refusedFormText]))</p>",
                                texts[.refused])))))
        }
        let blank = { (value: String?) in value.flatMap { $0.isEmpty ? nil : $0 } }
        let (percent, version, reason) = (blank(form.percent), blank(form.version), blank(form.reason))
        let useInstead = blank(form.useInstead)

        if form.confirm != "yes" {
            let policy: ReleasePolicy
            do {
                policy = try await service.releasePolicy(signedIn.call, tenantID: tenantID, miniAppID: miniAppID)
            } catch let error as AdminError {
                return try await refusedAction(error, signedIn, texts, tenantID: tenantID, miniAppID: miniAppID)
            }
            let view = ReleasePolicyView(policy, now: clock.now())
            let body = ConsoleReleasePage.confirmation(
                texts, action, view: view, revision: revision, csrf: signedIn.session.csrf, percent: percent,
                version: version, useInstead: useInstead,
                reason: reason)
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.framingPolicy),
                    body: .textHtmlCharsetUtf8(
                        .init(
                            html(body, texts.format(.confirmTitle, texts[ConsoleReleasePage.label(action)], miniAppID)))
                    )))
        }
        do {
            switch action {
            case .share:
                guard let percent, let value = Double(percent) else {
                    throw AdminError.invalidRelease("a share is a percent, 0-100")
                }
                _ = try await service.patchRelease(
                    signedIn.call, tenantID: tenantID, miniAppID: miniAppID,
                    patch: AdminReleasePatch(percent: value, reason: reason), revision: revision)
            case .pause, .resume, .promote, .rollback, .withdraw:
                let taken: AdminReleaseAction =
                    switch action {
                    case .pause: .pause
                    case .resume: .resume
                    case .promote: .promote
                    case .withdraw: .withdraw(version: version ?? "", useInstead: useInstead)
                    default: .rollback(to: version ?? "")
                    }
                _ = try await service.actOnRelease(
                    signedIn.call, tenantID: tenantID, miniAppID: miniAppID, action: taken, revision: revision,
                    reason: reason)
            }
        } catch let error as AdminError {
            return try await refusedAction(error, signedIn, texts, tenantID: tenantID, miniAppID: miniAppID)
        }
        return .seeOther(
            .init(
                headers: .init(
                    location:
                        "/console/t/\(tenantID)/miniapps/\(URLQuery.encode(miniAppID))/release?done=\(action.rawValue)"
                )))
    }

    func consoleReleaseChart(
        _ input: Operations.ConsoleReleaseChart.Input
    ) async throws -> Operations.ConsoleReleaseChart.Output {
        try Self.checkConsolePath(tenant: input.path.tenant, miniApp: input.path.miniapp)
        guard let signedIn = try await consoleCall() else {
            return .seeOther(.init(headers: .init(location: Self.signInPath)))
        }
        let texts = ConsoleTexts.negotiate(AdminScope.current.headers)
        let (tenantID, miniAppID) = (input.path.tenant, input.path.miniapp)
        let policy: ReleasePolicy
        do {
            policy = try await service.releasePolicy(signedIn.call, tenantID: tenantID, miniAppID: miniAppID)
        } catch let error as AdminError {
            let html = ConsolePage.message(texts, title: texts[.refused], text: texts.refusal(error), link: nil)
            switch error {
            case .forbidden: return .forbidden(.init(body: .textHtmlCharsetUtf8(.init(html))))
            case .tenantNotFound, .releaseNotFound: return .notFound(.init(body: .textHtmlCharsetUtf8(.init(html))))
            default: throw error
            }
        }
        let candidate = policy.candidate?.version ?? "-"
        let points = try await releaseSeries.points(
            tenantID: tenantID, miniAppID: miniAppID, candidate: candidate, now: clock.now())
        let svg = ConsoleChart.releaseHealth(points, candidate: candidate, rule: policy.autoHalt, texts: texts)
        let html = """
            <!doctype html><html lang="\(texts.language)"><head><meta charset="utf-8">\
            <meta http-equiv="refresh" content="30">\
            <meta name="viewport" content="width=device-width, initial-scale=1"><title>\(ConsolePage.escape(texts[.health]))</title>\
            <link rel="stylesheet" href="/console/assets/console.css"></head><body class="framed">\(svg)\
            <p class="legend"><span class="key candidate">\(ConsolePage.escape(candidate))</span> \
            <span class="key stable">\(ConsolePage.escape(texts[.stable]))</span> \
            <span class="key threshold">\(ConsolePage.escape(texts[.haltRule]))</span></p></body></html>
            """
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store", contentSecurityPolicy: ConsolePage.framedPolicy),
                body: .textHtmlCharsetUtf8(.init(html))))
    }

    /// A tenant id of the contract's pattern and a mini app id within its bound, or 400.
    static func checkConsolePath(tenant: String, miniApp: String) throws {
        guard TenantID.isValid(tenant) else { throw AdminError.badRequest("tenant is not a tenant id") }
        try AdminInput.check(miniApp, max: 128, "miniapp")
    }

    /// What a refused action answers: the fresh page with why (who changed it and when, for
    /// a stale revision), or a refusal page.
    private func refusedAction(
        _ error: AdminError, _ signedIn: ConsoleCall, _ texts: ConsoleTexts, tenantID: String, miniAppID: String
    ) async throws -> Operations.ConsoleReleaseAction.Output {
        let message: String
        switch error {
        case .preconditionFailed:
            let last = try? await service.releaseHistory(
                signedIn.call, tenantID: tenantID, miniAppID: miniAppID, limit: 1
            ).first
            message = texts.format(
                .changedBy, last?.actor ?? "?", last.map { RFC3339.string(from: $0.at) } ?? "?")
        case .releaseStateConflict(let why), .invalidRelease(let why): message = why
        default: message = texts.refusal(error)
        }
        let page = try await releasePage(
            signedIn, texts, tenantID: tenantID, miniAppID: miniAppID, notice: (message, true))
        let headers = ("no-store", ConsolePage.framingPolicy)
        let html: String
        switch page {
        case .refused(let refused):
            return .forbidden(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(refused))))
        case .missing(let missing):
            return .notFound(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(missing))))
        case .page(let shown): html = shown
        }
        switch error {
        case .preconditionFailed:
            return .preconditionFailed(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .releaseStateConflict:
            return .conflict(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        case .forbidden:
            return .forbidden(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        default:
            return .unprocessableContent(
                .init(
                    headers: .init(cacheControl: headers.0, contentSecurityPolicy: headers.1),
                    body: .textHtmlCharsetUtf8(.init(html))))
        }
    }

    /// A console page (release, tenant), or why it cannot be shown.
    enum ConsolePageResult {
        case page(String)
        case refused(String)
        case missing(String)
    }

    private func releasePage(
        _ signedIn: ConsoleCall, _ texts: ConsoleTexts, tenantID: String, miniAppID: String,
        notice: (text: String, error: Bool)?
    ) async throws -> ConsolePageResult {
        let page = { (title: String, body: String) in
            signedIn.page(texts, title: title, section: nil, body: body)
        }
        do {
            let policy = try await service.releasePolicy(signedIn.call, tenantID: tenantID, miniAppID: miniAppID)
            let history = try await service.releaseHistory(
                signedIn.call, tenantID: tenantID, miniAppID: miniAppID, limit: 20)
            let bindings = signedIn.call.session.bindings
            let canAct = [AdminPermission(.act, .release), AdminPermission(.update, .release)].allSatisfy {
                AdminAuthorizer.decide($0, tenantID: tenantID, miniAppID: miniAppID, bindings: bindings) == .allowed
            }
            let body = ConsoleReleasePage.body(
                texts, policy: policy, history: history, now: clock.now(), canAct: canAct, csrf: signedIn.session.csrf,
                notice: notice)
            return .page(page("\(miniAppID) · \(tenantID)", body))
        } catch let error as AdminError {
            let text = "<p class=\"error\" role=\"alert\">\(ConsolePage.escape(notice?.text ?? texts.refusal(error)))</p>"
            switch error {
            case .forbidden: return .refused(page(texts[.refused], text))
            case .tenantNotFound, .releaseNotFound: return .missing(page(texts[.notFound], text))
            default: throw error
            }
        }
    }
}
