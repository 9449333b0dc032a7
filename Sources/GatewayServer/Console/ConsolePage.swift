import Foundation
import GatewayCore
import HTTPTypes

/// The console's HTML (issue 49): one layout, server-rendered, no script. Every value from
/// outside goes through ``escape(_:)``. Styles come from `/console/assets/console.css` only,
/// which the Content-Security-Policy below enforces.
enum ConsolePage {
    /// No script at all, styles and images from this origin, forms post here only.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// The headers every console answer carries, refusals and errors included (issue 62 §3):
    /// a page's own policy and caching stay; what it lacks is added.
    static func guardHeaders(_ headers: inout HTTPFields) {
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = contentSecurityPolicy }
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    }

    /// A page that frames the console's own live chart (the release page).
    static let framingPolicy = contentSecurityPolicy + "; frame-src 'self'"
    /// The live chart: framed by the console's own pages only.
    static let framedPolicy = contentSecurityPolicy.replacingOccurrences(
        of: "frame-ancestors 'none'", with: "frame-ancestors 'self'")

    /// Which page of the navigation is shown.
    enum Section { case overview, audit }

    /// A full page: the header (navigation, who is signed in, sign-out form with the
    /// session's CSRF token), then `body` in `main`.
    static func page(
        _ texts: ConsoleTexts, title: String, section: Section?, operatorName: String?, csrf: String?,
        auditLink: String? = "/console/audit", body: String
    ) -> String {
        let link = { (target: Section, href: String, label: ConsoleTexts.Key) in
            "<a href=\"\(href)\"\(section == target ? " aria-current=\"page\"" : "")>\(escape(texts[label]))</a>"
        }
        var header = ""
        if let operatorName, let csrf {
            header = """
                <header><nav aria-label="\(escape(texts[.console]))">\(link(.overview, "/console", .overview))\
                \(auditLink.map { " " + link(.audit, escape($0), .audit) } ?? "")</nav>\
                <form method="post" action="/console/sign-out" class="who"><input type="hidden" name="csrf_token" \
                value="\(escape(csrf))"><span>\(escape(texts[.signedInAs])) <strong>\(escape(operatorName))</strong></span> \
                <button type="submit">\(escape(texts[.signOut]))</button></form></header>
                """
        }
        return """
            <!doctype html><html lang="\(texts.language)"><head><meta charset="utf-8">\
            <meta name="viewport" content="width=device-width, initial-scale=1">\
            <title>\(escape(title)) · \(escape(texts[.console]))</title>\
            <link rel="stylesheet" href="/console/assets/console.css"></head><body>\
            <a class="skip" href="#main">\(escape(texts[.skipToContent]))</a>\(header)\
            <main id="main"><h1>\(escape(title))</h1>\(body)</main></body></html>
            """
    }

    /// A page that only says something went wrong, with a way on.
    static func message(
        _ texts: ConsoleTexts, title: String, text: String, link: (href: String, label: String)?
    ) -> String {
        let next = link.map { "<p><a href=\"\(escape($0.href))\">\(escape($0.label))</a></p>" } ?? ""
        return page(
            texts, title: title, section: nil, operatorName: nil, csrf: nil,
            body: "<p class=\"error\" role=\"alert\">\(escape(text))</p>\(next)")
    }

    /// A table with a caption, one header row and `rows` (cells already escaped HTML).
    static func table(caption: String, headers: [String], rows: [[String]]) -> String {
        let head = headers.map { "<th scope=\"col\">\(escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined()
        return "<div class=\"scroll\"><table><caption>\(escape(caption))</caption><thead><tr>\(head)</tr></thead>"
            + "<tbody>\(body)</tbody></table></div>"
    }

    /// A tenant's last hour as three cells: requests per minute, 5xx share, p95 bucket.
    static func trafficCells(_ summary: TenantTraffic.Summary?) -> [String] {
        guard let summary, summary.requests > 0 else { return ["0", "-", "-"] }
        let p95 =
            summary.p95.map { $0.isInfinite ? "> \(Int(TenantTraffic.bounds.last!)) ms" : "≤ \(Int($0)) ms" } ?? "-"
        return [
            String(format: "%.1f", summary.perMinute),
            String(format: "%.1f %%", (summary.errorShare ?? 0) * 100), escape(p95),
        ]
    }

    /// HTML-escapes `text` (element content and quoted attribute values), as the sign-in pages do.
    static func escape(_ text: String) -> String { LoginPage.escape(text) }
}
