import Foundation
import GatewayCore

/// The console's audit record page (issue 49): who did what to which resource and how it
/// ended, the change as a readable diff (before and after side by side, only what differs),
/// and whether the record still holds in its chain.
enum ConsoleAuditPage {
    /// One changed field: its dotted path and its values before and after (nil: absent).
    struct Difference: Equatable {
        var path: String
        var before: String?
        var after: String?
    }

    /// The fields `change` touches, in path order: added, removed or changed.
    static func differences(_ change: AuditChange?) -> [Difference] {
        let flat = { (value: JSONValue?) in
            Dictionary(
                (value.map { ConsoleJSON.flatten($0) } ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        }
        let (before, after) = (flat(change?.before), flat(change?.after))
        return Set(before.keys).union(after.keys).sorted().compactMap { path in
            before[path] == after[path] ? nil : Difference(path: path, before: before[path], after: after[path])
        }
    }

    static func body(_ texts: ConsoleTexts, record: AuditRecord, link: AuditVerifier.Break?) -> String {
        let escape = ConsolePage.escape
        let actor = record.actor
        var facts: [(ConsoleTexts.Key, String)] = [
            (.time, texts.time(record.time)), (.chain, escape(record.chain)),
            (.sequence, String(record.sequence)),
            (
                .actor,
                escape(actor.label) + (actor.roles.isEmpty ? "" : " (\(escape(actor.roles.joined(separator: ", "))))")
            ),
            (.verb, escape(record.note?.action ?? record.verb.rawValue)),
            (
                .resource,
                escape([record.resource.type.rawValue, record.resource.id].compactMap { $0 }.joined(separator: " "))
            ),
            (.outcome, escape(String(record.outcome.status) + (record.outcome.code.map { " \($0)" } ?? ""))),
        ]
        if let address = actor.address { facts.append((.address, escape(address))) }
        if let request = record.requestID { facts.append((.requestID, "<code>\(escape(request))</code>")) }
        if let summary = record.note?.summary { facts.append((.summary, escape(summary))) }
        if let reason = record.note?.reason { facts.append((.reason, escape(reason))) }
        var body =
            "<dl class=\"policy\">"
            + facts.map { "<dt>\(escape(texts[$0.0]))</dt><dd>\($0.1)</dd>" }.joined() + "</dl>"
        body +=
            link.map { broken in
                "<p class=\"error\" role=\"alert\">\(escape(texts.format(.recordBroken, broken.description)))</p>"
            } ?? "<p class=\"notice\">\(escape(texts.format(.recordHolds, record.chain)))</p>"
        let differences = differences(record.change)
        body += "<h2>\(escape(texts[.change]))</h2>"
        if differences.isEmpty {
            body += "<p>\(escape(texts[.noChange]))</p>"
        } else {
            body += ConsolePage.table(
                caption: texts[.change], headers: [texts[.setting], texts[.before], texts[.after]],
                rows: differences.map { difference in
                    [
                        "<code>\(escape(difference.path))</code>",
                        difference.before.map { "<del>\(escape($0))</del>" } ?? "<span class=\"muted\">-</span>",
                        difference.after.map { "<ins>\(escape($0))</ins>" } ?? "<span class=\"muted\">-</span>",
                    ]
                })
        }
        body += "<p class=\"muted\">\(escape(texts.format(.verifyWhole, record.chain, verifyCommand(chain: record.chain))))</p>"
        body += "<p><a href=\"/console/audit?tenant=\(URLQuery.encode(record.chain))\">\(escape(texts[.audit]))</a></p>"
        return body
    }

    /// The gatewayctl command that verifies `chain` from its start (a test runs its --help).
    static func verifyCommand(chain: String) -> String {
        "gatewayctl audit verify " + (chain == AuditChain.platform ? "--platform" : "--tenant \(chain)")
    }
}
