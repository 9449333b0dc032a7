import Foundation
import GatewayCore

/// The console's tenant page (issue 49): the configuration with its secrets masked, the OAuth
/// clients, the signing keys with their phase and next step, the link domains and who holds
/// a role here. A section the operator's roles do not let it read says so instead.
enum ConsoleTenantPage {
    /// What the page shows; nil sections are not readable with the operator's roles.
    struct Sections {
        var tenant: Tenant
        var clients: [OAuthClient]?
        var keys: [SigningKeyDocument]?
        var domains: [TenantDomain]?
        var bindings: [(operatorName: String, binding: RoleBinding)]?
        var releases: [ReleasePolicy]?
        var canReadNotifications: Bool
        /// The newest courier messages (e-mail and SMS), recipients masked.
        var courier: [CourierMessageDocument]?
        /// The configuration form, for an operator who may change it.
        var form: String?
    }

    /// A client's grant types; a CIBA client's with its delivery mode, its ping endpoint and
    /// whether it must send the user's code.
    static func grants(of client: OAuthClient) -> String {
        (client.grantTypes ?? OAuthClient.knownGrantTypes).map { grant in
            guard grant == BackchannelRules.grantType else { return grant }
            let endpoint = client.backchannelNotificationEndpoint.map { " → " + $0 } ?? ""
            let userCode = client.backchannelUserCodeRequired == true ? ", user_code" : ""
            return "ciba (\(client.backchannelMode?.rawValue ?? "?")\(endpoint)\(userCode))"
        }.joined(separator: " ")
    }

    /// A client's default scopes, then the optional ones it gets when it asks.
    static func scopes(of client: OAuthClient, texts: ConsoleTexts) -> String {
        let defaults = client.defaultScopes ?? []
        let optional = client.allowedScopes.filter { !defaults.contains($0) }
        guard !optional.isEmpty else { return defaults.joined(separator: " ") }
        let asked = "(" + texts.format(.optionalScopes, optional.joined(separator: " ")) + ")"
        return (defaults + [asked]).joined(separator: " ")
    }

    static func body(
        _ texts: ConsoleTexts, _ sections: Sections, notice: (text: String, error: Bool)? = nil
    ) throws -> String {
        let tenant = sections.tenant
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let document = try encoder.encode(TenantDocument(tenant, secrets: .masked, sealer: nil))
        let settings = ConsoleJSON.flatten(try JSONDecoder().decode(JSONValue.self, from: document))
        let hidden = "<p class=\"muted\">\(ConsolePage.escape(texts[.notReadable]))</p>"
        let escape = ConsolePage.escape
        var body =
            notice.map { notice in
                notice.error
                    ? "<p class=\"error\" role=\"alert\">\(escape(notice.text))</p>"
                    : "<p class=\"notice\" role=\"status\">\(escape(notice.text))</p>"
            } ?? ""
        body += "<h2>\(escape(texts[.configuration]))</h2>"
        body += ConsolePage.table(
            caption: texts[.configuration], headers: [texts[.setting], texts[.value]],
            rows: settings.map { ["<code>\(escape($0.key))</code>", escape($0.value)] })
        if let form = sections.form {
            body += "<h3 id=\"edit\">\(escape(texts[.editConfiguration]))</h3>" + form
        } else {
            body += "<p class=\"muted\">\(escape(texts[.secretsMasked]))</p>"
        }

        body += "<h2>\(escape(texts[.clients]))</h2>"
        body +=
            sections.clients.map { clients in
                ConsolePage.table(
                    caption: texts[.clients],
                    headers: ["client_id", texts[.kind], texts[.grants], texts[.redirects], texts[.scopes]],
                    rows: clients.map { client in
                        [
                            "<code>\(escape(client.clientID))</code>",
                            escape(client.confidential ? texts[.confidential] : texts[.publicClient]),
                            escape(Self.grants(of: client)),
                            escape(client.redirectURIs.joined(separator: " ")),
                            escape(Self.scopes(of: client, texts: texts)),
                        ]
                    })
            } ?? hidden

        body += "<h2>\(escape(texts[.signingKeys]))</h2>"
        body +=
            sections.keys.map { keys in
                ConsolePage.table(
                    caption: texts[.signingKeys], headers: ["kid", "alg", texts[.state], texts[.nextStep]],
                    rows: keys.map { key in
                        let next = key.nextState.map { state in
                            texts.format(.nextStepAt, state, key.nextAt.map(texts.time) ?? "-")
                        }
                        return [
                            "<code>\(escape(key.kid))</code>", escape(key.alg), escape(key.state),
                            next ?? escape(key.signing ? texts[.rotateHint] : "-"),
                        ]
                    })
            } ?? hidden

        body += "<h2>\(escape(texts[.linkDomains]))</h2>"
        body +=
            sections.domains.map { domains in
                ConsolePage.table(
                    caption: texts[.linkDomains], headers: [texts[.host], texts[.appIDs], texts[.androidApps]],
                    rows: domains.map {
                        [
                            escape($0.host), escape($0.appIDs.joined(separator: ", ")),
                            escape($0.androidApps.map(\.packageName).joined(separator: ", ")),
                        ]
                    })
            } ?? hidden

        body += "<h2>\(escape(texts[.roleBindings]))</h2>"
        body +=
            sections.bindings.map { bindings in
                ConsolePage.table(
                    caption: texts[.roleBindings], headers: [texts[.operatorName], texts[.role], texts[.miniApps]],
                    rows: bindings.map { held in
                        [
                            escape(held.operatorName), escape(held.binding.role.rawValue),
                            escape(
                                held.binding.miniAppIDs.isEmpty
                                    ? texts[.anyValue] : held.binding.miniAppIDs.joined(separator: ", ")),
                        ]
                    })
            } ?? hidden

        body += "<h2>\(escape(texts[.rollouts]))</h2>"
        body +=
            sections.releases.map { policies in
                policies.isEmpty
                    ? "<p>-</p>"
                    : "<ul>"
                        + policies.map { policy in
                            let link = "/console/t/\(tenant.id)/miniapps/\(URLQuery.encode(policy.miniAppID))/release"
                            return "<li><a href=\"\(escape(link))\">\(escape(policy.miniAppID))</a></li>"
                        }.joined() + "</ul>"
            } ?? hidden
        if sections.canReadNotifications {
            body += "<p><a href=\"/console/t/\(tenant.id)/notifications\">\(escape(texts[.notifications]))</a></p>"
        }
        body += "<h2>\(escape(texts[.courier]))</h2>"
        body +=
            sections.courier.map { messages in
                messages.isEmpty
                    ? "<p class=\"muted\">\(escape(texts[.noCourierMessages]))</p>"
                    : ConsolePage.table(
                        caption: texts[.courier],
                        headers: [
                            texts[.time], texts[.channel], texts[.purpose], texts[.recipient], texts[.state],
                            texts[.attempts], texts[.lastError],
                        ],
                        rows: messages.map { message in
                            [
                                texts.time(message.createdAt), escape(message.channel), escape(message.purpose),
                                escape(message.recipient), escape(message.state), String(message.attempts),
                                escape(message.lastError ?? "-"),
                            ]
                        })
            } ?? hidden
        return body
    }
}
