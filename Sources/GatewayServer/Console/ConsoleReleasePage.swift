import Foundation
import GatewayCore

/// The release page of the console (issue 49): the policy in words, one form per action the
/// operator's roles allow, the history; and the confirmation page that says what an action
/// will do to whom before it is taken.
enum ConsoleReleasePage {
    /// The actions the page offers, in the order shown.
    enum Action: String, CaseIterable {
        case share, pause, resume, promote, rollback, withdraw
    }

    /// The page's body: `notice` (a done or refused message) first, then the policy, the
    /// action forms when `canAct`, the history.
    static func body(
        _ texts: ConsoleTexts, policy: ReleasePolicy, history: [ReleaseHistoryEntry], now: Date, canAct: Bool,
        csrf: String, notice: (text: String, error: Bool)?
    ) -> String {
        let view = ReleasePolicyView(policy, now: now)
        var html = ""
        if let notice {
            html +=
                "<p class=\"\(notice.error ? "error" : "notice")\" role=\"\(notice.error ? "alert" : "status")\">"
                + "\(ConsolePage.escape(notice.text))</p>"
        }
        html += summary(texts, view)
        if let candidate = view.candidate {
            let chart =
                "/console/t/\(policy.tenantID)/miniapps/\(URLQuery.encode(policy.miniAppID))/release/chart"
            html +=
                "<h2>\(ConsolePage.escape(texts[.health]))</h2><iframe class=\"chart-frame\" src=\"\(ConsolePage.escape(chart))\" "
                + "title=\"\(ConsolePage.escape(texts[.health]) + " · " + ConsolePage.escape(candidate.version))\"></iframe>"
        }
        if canAct { html += forms(texts, view, csrf: csrf) }
        let rows = history.map { entry in
            [
                texts.time(entry.at), ConsolePage.escape(entry.actor), ConsolePage.escape(entry.action.rawValue),
                ConsolePage.escape(entry.summary), ConsolePage.escape(entry.reason ?? ""),
            ]
        }
        html += ConsolePage.table(
            caption: texts[.history],
            headers: [texts[.time], texts[.actor], texts[.verb], texts[.summary], texts[.reason]],
            rows: rows)
        return html
    }

    /// The policy as a description list.
    static func summary(_ texts: ConsoleTexts, _ view: ReleasePolicyView) -> String {
        var items: [(ConsoleTexts.Key, String)] = [(.stable, view.stable ?? texts[.platformLatest])]
        if let candidate = view.candidate {
            items += [
                (.candidate, candidate.version), (.state, candidate.state),
                (.share, "\(candidate.shareNow) % (\(texts[.target]) \(candidate.percent) %)"),
                (
                    .steps,
                    candidate.steps.isEmpty
                        ? "-"
                        : candidate.steps.map { "\($0.percent) % @ \(RFC3339.string(from: $0.at))" }
                            .joined(separator: ", ")
                ),
                (.lists, "\(candidate.allowUsers.count) / \(candidate.denyUsers.count)"),
                (
                    .segment,
                    [
                        candidate.hostVersions, candidate.platforms.joined(separator: " "),
                        candidate.locales.joined(separator: " "),
                    ]
                    .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ")
                ),
            ]
        } else {
            items.append((.candidate, "-"))
        }
        if let rule = view.autoHalt {
            items.append((.haltRule, "\(rule.errorRatio)× stable, \(rule.minOpens) opens, \(rule.minUsers) users"))
        }
        items.append((.revision, String(view.revision)))
        let rows = items.map { key, value in
            "<dt>\(ConsolePage.escape(texts[key]))</dt><dd>\(ConsolePage.escape(value.isEmpty ? "-" : value))</dd>"
        }
        return "<dl class=\"policy\">\(rows.joined())</dl>"
    }

    /// One form per action that fits the policy's state; each goes to the confirmation first.
    static func forms(_ texts: ConsoleTexts, _ view: ReleasePolicyView, csrf: String) -> String {
        let state = view.candidate?.state
        var forms: [String] = []
        let hidden = { (action: Action) in
            "<input type=\"hidden\" name=\"csrf_token\" value=\"\(ConsolePage.escape(csrf))\">"
                + "<input type=\"hidden\" name=\"revision\" value=\"\(view.revision)\">"
                + "<input type=\"hidden\" name=\"action\" value=\"\(action.rawValue)\">"
        }
        let form = { (action: Action, fields: String) in
            "<form method=\"post\" class=\"action\">\(hidden(action))\(fields)"
                + "<button type=\"submit\">\(ConsolePage.escape(texts[label(action)]))</button></form>"
        }
        if state == "active" || state == "paused" {
            forms.append(
                form(
                    .share,
                    "<label>\(ConsolePage.escape(texts[.newShare]))<input name=\"percent\" inputmode=\"decimal\" "
                        + "required value=\"\(ConsolePage.escape(view.candidate?.percent ?? ""))\"></label>"))
        }
        if state == "active" { forms.append(form(.pause, "")) }
        if state == "paused" || state == "halted" { forms.append(form(.resume, "")) }
        if state != nil { forms.append(form(.promote, "")) }
        forms.append(
            form(
                .rollback,
                "<label>\(ConsolePage.escape(texts[.version]))<input name=\"version\" required "
                    + "value=\"\(ConsolePage.escape(view.stable ?? ""))\"></label>"))
        forms.append(
            form(
                .withdraw,
                "<label>\(ConsolePage.escape(texts[.version]))<input name=\"version\" required "
                    + "value=\"\(ConsolePage.escape(view.candidate?.version ?? ""))\"></label>"
                    + "<label>\(ConsolePage.escape(texts[.useInstead]))<input name=\"use_instead\" "
                    + "value=\"\(ConsolePage.escape(view.stable ?? ""))\"></label>"))
        return "<h2>\(ConsolePage.escape(texts[.actions]))</h2><div class=\"actions\">\(forms.joined())</div>"
    }

    /// What `action` will do to whom, in words, for the confirmation page.
    static func consequence(
        _ texts: ConsoleTexts, _ action: Action, view: ReleasePolicyView, percent: String?, version: String?,
        useInstead: String?
    ) -> String {
        let candidate = view.candidate?.version ?? "-"
        let stable = view.stable ?? texts[.platformLatest]
        let share = view.candidate?.shareNow ?? "0"
        return switch action {
        case .share: texts.format(.consequenceShare, candidate, share, percent ?? "?", stable)
        case .pause: texts.format(.consequencePause, candidate, share)
        case .resume: texts.format(.consequenceResume, candidate, view.candidate?.percent ?? "?")
        case .promote: texts.format(.consequencePromote, candidate, stable)
        case .rollback: texts.format(.consequenceRollback, version ?? "?", candidate)
        case .withdraw: texts.format(.consequenceWithdraw, version ?? "?", useInstead ?? stable)
        }
    }

    /// The confirmation form: the same fields again with `confirm=yes`, at `revision`, the
    /// one the operator's page showed (so a change made meanwhile is refused, not overridden).
    static func confirmation(
        _ texts: ConsoleTexts, _ action: Action, view: ReleasePolicyView, revision: Int64, csrf: String,
        percent: String?,
        version: String?, useInstead: String?,
        reason: String?
    ) -> String {
        var fields = [
            ("csrf_token", csrf), ("revision", String(revision)), ("action", action.rawValue), ("confirm", "yes"),
        ]
        if let percent { fields.append(("percent", percent)) }
        if let version { fields.append(("version", version)) }
        if let useInstead { fields.append(("use_instead", useInstead)) }
        let hidden = fields.map { "<input type=\"hidden\" name=\"\($0)\" value=\"\(ConsolePage.escape($1))\">" }
            .joined()
        return
            "<p>\(ConsolePage.escape(consequence(texts, action, view: view, percent: percent, version: version, useInstead: useInstead)))</p>"
            + "<form method=\"post\" class=\"action\">\(hidden)"
            + "<label>\(ConsolePage.escape(texts[.reason]))<input name=\"reason\" value=\"\(ConsolePage.escape(reason ?? ""))\"></label>"
            + "<button type=\"submit\">\(ConsolePage.escape(texts[.confirm]))</button></form>"
            + "<p><a href=\"?\">\(ConsolePage.escape(texts[.cancel]))</a></p>"
    }

    static func label(_ action: Action) -> ConsoleTexts.Key {
        switch action {
        case .share: .actionShare
        case .pause: .actionPause
        case .resume: .actionResume
        case .promote: .actionPromote
        case .rollback: .actionRollback
        case .withdraw: .actionWithdraw
        }
    }
}
