import Foundation
import GatewayCore

/// The tenant page's configuration form (issue 49): each setting a form can edit, shown with
/// its value (secrets never: their fields start empty and an empty one keeps the secret), and
/// the problems the tenant rules find shown beside their fields.
enum ConsoleTenantSettingsForm {
    enum Kind: Equatable {
        case text, url, number, secret, checkbox, color
    }

    /// The settings the form edits, in the page's order. Feature flags and RAS client keys are
    /// lists with their own verbs (`gatewayctl tenant update`, the admin API).
    static let fields: [(field: TenantField, kind: Kind)] = [
        (.displayName, .text), (.platformBaseURL, .url), (.platformProjectID, .text),
        (.platformSubscriptionKey, .secret), (.platformPreviewMode, .checkbox),
        (.platformRequireSignatureVerification, .checkbox), (.provisioningBaseURL, .url),
        (.provisioningSuperAppID, .text), (.provisioningSuperAppVersion, .text), (.provisioningAPIKey, .secret),
        (.storageMaxSizeInBytes, .number), (.cacheMaxCount, .number), (.cacheMaxDays, .number),
        (.themePrimaryColor, .color), (.themeSecondaryColor, .color), (.themeLogoURL, .url), (.manifestTTL, .number),
        (.catalogTTL, .number), (.localizationTTL, .number), (.publicKeyTTL, .number),
        (.hostAppMinimumVersion, .text), (.hostAppLatestVersion, .text), (.hostAppUpdateURL, .url),
        (.rasRequireBearer, .checkbox), (.cibaRevealUnknownUsers, .checkbox), (.cibaRecentSignInSeconds, .number),
        (.cibaAllowPrivateNotificationEndpoints, .checkbox),
    ]

    /// The longest text a field's form value may be (the contract's `maxLength`).
    static func maxLength(_ field: TenantField, _ kind: Kind) -> Int {
        switch kind {
        case .checkbox: 8
        case .number: 19
        case .color: 7
        case .url: TenantValidator.urlMaxLength
        case .secret: TenantValidator.secretMaxLength
        case .text:
            switch field {
            case .displayName: TenantValidator.displayNameMaxLength
            case .hostAppMinimumVersion, .hostAppLatestVersion: 64
            default: TenantValidator.identifierMaxLength
            }
        }
    }

    /// A field's form name: its dotted path with `_` for `.` (`platform_baseURL`).
    static func name(_ field: TenantField) -> String { field.rawValue.replacingOccurrences(of: ".", with: "_") }

    /// What the posted form changes: a merge patch of the fields whose value differs from
    /// `tenant`'s (a blank secret keeps it; a checkbox left out is off), and the fields whose
    /// text is not a whole number.
    static func patch(
        _ posted: [String: String], tenant: Tenant
    ) -> (patch: TenantPatch?, unreadable: [TenantValidationError]) {
        var document: [String: JSONValue] = [:]
        var unreadable: [TenantValidationError] = []
        for (field, kind) in fields {
            let text = posted[name(field)] ?? ""
            let value: JSONValue
            switch kind {
            case .checkbox:
                let on = !text.isEmpty
                guard String(on) != field.plainValue(in: tenant) else { continue }
                value = .bool(on)
            case .secret:
                guard !text.isEmpty else { continue }
                value = .string(text)
            case .number:
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard trimmed != field.plainValue(in: tenant) else { continue }
                guard let number = Int64(trimmed) else {
                    unreadable.append(TenantValidationError(field: field, problem: "must be a whole number"))
                    continue
                }
                value = .number(Double(number))
            case .text, .url, .color:
                guard text != (field.plainValue(in: tenant) ?? "") else { continue }
                value = .string(text)
            }
            set(value, at: field.rawValue.split(separator: ".").map(String.init), in: &document)
        }
        guard unreadable.isEmpty, !document.isEmpty else { return (nil, unreadable) }
        let json = (try? JSONValue.object(document).encoded()) ?? Data()
        return ((try? JSONDecoder().decode(TenantPatch.self, from: json)), [])
    }

    private static func set(_ value: JSONValue, at path: [String], in object: inout [String: JSONValue]) {
        guard let head = path.first else { return }
        if path.count == 1 {
            object[head] = value
            return
        }
        var inner: [String: JSONValue] = [:]
        if case .object(let existing)? = object[head] { inner = existing }
        set(value, at: Array(path.dropFirst()), in: &inner)
        object[head] = .object(inner)
    }

    /// The form: each field labelled by its dotted name, with the posted text when the form
    /// comes back refused, and its problem beside it (`aria-describedby`).
    static func form(
        _ texts: ConsoleTexts, tenant: Tenant, csrf: String, revision: Int64, posted: [String: String]?,
        problems: [TenantValidationError]
    ) -> String {
        let escape = ConsolePage.escape
        var html = """
            <form method="post" action="/console/t/\(tenant.id)" class="settings">\
            <input type="hidden" name="csrf_token" value="\(escape(csrf))">\
            <input type="hidden" name="revision" value="\(revision)">
            """
        for (field, kind) in fields {
            let formName = name(field)
            let problem = problems.first { $0.field == field }
            let described = problem.map { _ in " aria-invalid=\"true\" aria-describedby=\"problem-\(formName)\"" } ?? ""
            let note = problem.map {
                "<span class=\"field-error\" id=\"problem-\(formName)\">\(escape($0.problem))</span>"
            }
            let shown = posted.map { $0[formName] ?? "" } ?? (field.plainValue(in: tenant) ?? "")
            let control: String
            switch kind {
            case .checkbox:
                let on = posted.map { ($0[formName] ?? "").isEmpty == false } ?? (shown == "true")
                html += """
                    <label class="check"><input type="checkbox" name="\(formName)" value="on"\
                    \(on ? " checked" : "")\(described)> <code>\(escape(field.rawValue))</code></label>\(note ?? "")
                    """
                continue
            case .secret:
                control = """
                    <input type="password" name="\(formName)" autocomplete="new-password" \
                    maxlength="\(TenantValidator.secretMaxLength)" placeholder="\(escape(texts[.secretKept]))"\(described)>
                    """
            case .number:
                control = "<input name=\"\(formName)\" inputmode=\"numeric\" value=\"\(escape(shown))\"\(described)>"
            case .url:
                control = """
                    <input type="url" name="\(formName)" maxlength="\(TenantValidator.urlMaxLength)" \
                    value="\(escape(shown))"\(described)>
                    """
            case .color, .text:
                control = "<input name=\"\(formName)\" value=\"\(escape(shown))\"\(described)>"
            }
            html += "<label><code>\(escape(field.rawValue))</code>\(control)</label>\(note ?? "")"
        }
        html += "<p class=\"muted\">\(escape(texts[.secretsMasked]))</p>"
        html += "<button type=\"submit\">\(escape(texts[.saveConfiguration]))</button></form>"
        return html
    }
}
