import Crypto
import _CryptoExtras
import Foundation
import GatewayCore
import Testing
import Yams

/// Issue 14, item 5 (in part): the contract explains itself to integrators.
@Suite("The contract is readable")
struct ContractReadabilityTests {
    @Test("every operation has a summary and a description of at least a sentence; every success body has an example")
    func everyOperationDescribed() throws {
        let document = try RepositoryFile.contract()
        let paths = try #require(document["paths"] as? [String: Any])
        var operations = 0
        for (path, item) in paths {
            for (method, op) in (item as? [String: Any]) ?? [:]
            where ["get", "post", "put", "delete", "patch"].contains(method) {
                let op = try #require(op as? [String: Any])
                operations += 1
                let summary = (op["summary"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                let description = (op["description"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                #expect(!summary.isEmpty, "\(method.uppercased()) \(path) has no summary")
                #expect(description.count >= 40, "\(method.uppercased()) \(path) has no description")
                for (status, response) in (op["responses"] as? [String: Any]) ?? [:] where status.hasPrefix("2") {
                    for (type, content) in ((response as? [String: Any])?["content"] as? [String: Any]) ?? [:] {
                        let media = (content as? [String: Any]) ?? [:]
                        #expect(
                            media["example"] != nil || media["examples"] != nil,
                            "\(method.uppercased()) \(path) \(status) \(type) has no example")
                    }
                }
            }
        }
        #expect(operations >= 39)
    }

    @Test("every problem code the sources can raise is documented in Problem.code")
    func problemCodesDocumented() throws {
        // The admin listener's codes belong to its own contract (issue 48).
        let admin = ["Sources/GatewayServer/Admin", "Sources/GatewayCore/Operators"]
        let codes = try Self.problemCodes(in: ["Sources/GatewayCore", "Sources/GatewayServer"], excluding: admin)
        #expect(codes.count >= 25)
        let documented = try Self.documentedCodes(RepositoryFile.contract())
        for code in codes.sorted() {
            #expect(documented.contains("`\(code)`"), "problem code \(code) is not documented in Problem.code")
        }
        let adminCodes = try Self.problemCodes(in: admin, excluding: [])
        #expect(adminCodes.isSuperset(of: ["forbidden", "precondition_failed", "tenant_not_found"]))
        let adminContract = try #require(
            try Yams.load(yaml: RepositoryFile.text("OpenAPI/admin.yaml")) as? [String: Any])
        let adminDocumented = try Self.documentedCodes(adminContract, in: "Problem", field: nil)
        for code in adminCodes.sorted() {
            #expect(adminDocumented.contains("`\(code)`"), "admin problem code \(code) is not documented in admin.yaml's Problem")
        }
        // The audit filter's resources are the role table's.
        let audit = (adminContract["paths"] as? [String: Any])?["/admin/v1/audit"] as? [String: Any]
        let parameters = (audit?["get"] as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
        let resource = parameters.first { $0["name"] as? String == "resource" }
        let names = (resource?["schema"] as? [String: Any])?["enum"] as? [String]
        #expect(names == AdminResource.allCases.map(\.rawValue))
    }

    /// The admin API reads a tenant patch through JSON into GatewayCore's ``TenantPatch`` and
    /// answers ``TenantDocument``s: a member named one way in the contract and another in the
    /// code would be dropped without a word, so their member paths must be the same.
    @Test("the admin contract's tenant, client, user, push-credential and signing-key shapes have the members of their GatewayCore types")
    func tenantShapesMatchTheCode() throws {
        let contract = try #require(try Yams.load(yaml: RepositoryFile.text("OpenAPI/admin.yaml")) as? [String: Any])
        let schemas = try #require((contract["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func paths(_ schema: [String: Any], prefix: String = "") -> Set<String> {
            var resolved = schema
            if let ref = schema["$ref"] as? String, let target = schemas[String(ref.split(separator: "/").last!)] as? [String: Any] {
                resolved = target
            }
            guard let properties = resolved["properties"] as? [String: Any] else { return [prefix] }
            return properties.reduce(into: Set<String>()) { found, member in
                let path = prefix.isEmpty ? member.key : "\(prefix).\(member.key)"
                let child = member.value as? [String: Any] ?? [:]
                found.formUnion(child["properties"] != nil || child["$ref"] != nil ? paths(child, prefix: path) : [path])
            }
        }
        func paths(_ value: JSONValue, prefix: String = "") -> Set<String> {
            guard case .object(let members) = value, prefix.isEmpty || !members.isEmpty, !["featureFlags", "ras.clientKeys", "journeys.stepUp"].contains(prefix)
            else { return [prefix] }
            return members.reduce(into: Set<String>()) { found, member in
                found.formUnion(paths(member.value, prefix: prefix.isEmpty ? member.key : "\(prefix).\(member.key)"))
            }
        }
        func json(_ value: some Encodable) throws -> JSONValue {
            try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        }
        let full = TenantPatch(
            displayName: "d", platform: .init(baseURL: "u", projectID: "p", subscriptionKey: "s", previewMode: true,
                requireSignatureVerification: true),
            provisioning: .init(baseURL: "u", superAppID: "a", superAppVersion: "v", apiKey: "k"), storageMaxSizeInBytes: 1,
            cacheRules: .init(maxCount: 1, maxDays: 1), theme: .init(primaryColor: "c", secondaryColor: "c", logoURL: "u"),
            cacheTTLs: .init(manifestSeconds: 1, catalogSeconds: 1, localizationSeconds: 1, publicKeySeconds: 1),
            hostApp: .init(minimumVersion: "1", latestVersion: "1", updateURL: "u"), featureFlags: ["f": true],
            removeFeatureFlags: ["g"], ras: .init(clientKey: "k", clientKeyOverlapSeconds: 1, requireBearer: true),
            ciba: .init(revealUnknownUsers: true, recentSignInSeconds: 60, allowPrivateNotificationEndpoints: true),
            journeys: .init(
                signUp: true, identifiers: [.email], verify: [.email], recovery: [.email], factors: [.password],
                codesPerIdentifierPerHour: 5, signUpsPerAddressPerHour: 10, stepUp: ["urn:acme:loa:2": [.totp]]),
            courier: .init(
                smtp: .init(url: "u", from: "f", startTLS: .required, username: "n", password: "p"),
                sms: .init(
                    provider: .twilio, url: "u", accountSid: "a", authToken: "t", from: "f", allowedCountries: ["81"],
                    perCountryPerHour: 1)),
            passkeys: .init(rpId: "acme.example", origins: ["https://acme.example"]))
        let patchSchema = try #require(schemas["TenantPatch"] as? [String: Any])
        #expect(paths(patchSchema) == paths(try json(full)))
        #expect(paths(try #require(schemas["TenantCreate"] as? [String: Any])) == paths(try json(full)).union(["id"]))

        let tenant = Tenant(
            id: "acme", displayName: "Acme",
            platform: PlatformSettings(baseURL: "https://p", projectID: "p", subscriptionKey: SecretValue("sk-0123456789")),
            provisioning: ProvisioningSettings(
                baseURL: "https://v", superAppID: "a", superAppVersion: "1", apiKey: SecretValue("pk-0123456789")),
            theme: Theme(logoURL: "https://acme.example/l.png"),
            hostApp: HostAppVersionPolicy(minimumVersion: "1", latestVersion: "2", updateURL: "https://u"),
            featureFlags: ["f": true], ras: RASSettings(clientKeys: [RASClientKey(hash: "sha256$x", notAfter: Date())]),
            passkeys: PasskeySettings(rpId: "acme.example", origins: ["https://acme.example"]),
            courier: CourierSettings(
                smtp: SMTPRelay(url: "u", from: "f", username: "n", password: SecretValue("p-0123456789")),
                sms: SMSSettings(
                    provider: .twilio, url: "u", accountSid: "a", authToken: SecretValue("t-0123456789"), from: "f",
                    allowedCountries: ["81"])))
        let document = try json(TenantDocument(tenant, secrets: .masked, sealer: nil))
        #expect(paths(try #require(schemas["Tenant"] as? [String: Any])) == paths(document))

        var client = OAuthClient(tenantID: "acme", clientID: "app", redirectURIs: [], idTokenSigningAlgorithm: .es256)
        (client.dpopNonceRequired, client.firstParty, client.grantTypes, client.miniApps) = (true, true, ["x"], ["m"])
        (client.jwks, client.revision, client.defaultScopes) = (.object(["keys": .array([])]), 2, ["openid"])
        (client.backchannelMode, client.backchannelNotificationEndpoint, client.backchannelUserCodeRequired) = (
            .ping, "https://x", true
        )
        var clientPaths = paths(try json(client))
        clientPaths.remove("jwks.keys")
        clientPaths.insert("jwks")
        #expect(paths(try #require(schemas["OAuthClient"] as? [String: Any])) == clientPaths)

        let keys = TenantKeys([
            try SigningKey.generate(tenantID: "acme", now: Date(timeIntervalSince1970: 0)),
            try SigningKey.generate(tenantID: "acme", now: Date(timeIntervalSince1970: 10), signFrom: Date(timeIntervalSince1970: 100)),
        ])
        var key = SigningKeyDocument(keys.keys[0], in: keys, at: Date(timeIntervalSince1970: 50))
        (key.signUntil, key.unpublishAt) = (Date(), Date())
        #expect(paths(try #require(schemas["SigningKey"] as? [String: Any])) == paths(try json(key)))
        var user = LocalUser(
            tenantID: "acme", username: "u", name: "n", email: "e", phone: "+819012345678", picture: "p", passwordHash: "ph")
        user.totpSecret = SecretValue("s")
        let userPaths = paths(try json(UserDocument(user)))
        #expect(paths(try #require(schemas["User"] as? [String: Any])) == userPaths)
        #expect(
            paths(try #require(schemas["UserStateChange"] as? [String: Any]))
                == paths(try json(UserStateChange(user: UserDocument(user), revokedTokens: 1))))
        let patchPaths = paths(try json(UserPatch(name: "n", email: "e", phone: "+81", picture: "p", password: "pw")))
        #expect(paths(try #require(schemas["UserPatch"] as? [String: Any])) == patchPaths)
        #expect(paths(try #require(schemas["UserCreate"] as? [String: Any])) == patchPaths.union(["username"]))
        let apns = try APNsCredentials(
            keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.acme.app", environment: .sandbox,
            privateKey: P256.Signing.PrivateKey().pemRepresentation)
        let fcm = try FCMCredentials(
            projectID: "p", clientEmail: "e@p.example", privateKeyID: "k", tokenURI: "https://oauth2.googleapis.com/token",
            privateKey: _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation)
        #expect(
            paths(try #require(schemas["PushCredential"] as? [String: Any]))
                == paths(try json(PushCredentialDocument(.apns(apns)))).union(paths(try json(PushCredentialDocument(.fcm(fcm))))))
        let retirement = SigningKeyRetirement(retired: "k", tenant: "acme", unpublishAt: Date(), promoted: "p")
        #expect(paths(try #require(schemas["SigningKeyRetirement"] as? [String: Any])) == paths(try json(retirement)))
        let domain = TenantDomain(host: "links.acme.example", tenantID: "acme", appIDs: ["ABCDE12345.com.acme.app"])
        #expect(paths(try #require(schemas["LinkDomain"] as? [String: Any])) == paths(try json(domain)))
        let trust = TrustedIssuer(
            tenantID: "acme", issuer: "https://login.partner.example", audience: "a", jwksURI: "https://login.partner.example/jwks",
            introspection: .init(clientID: "gw", clientSecret: SecretValue("partner-secret-0042")))
        #expect(paths(try #require(schemas["TrustedIssuer"] as? [String: Any])) == paths(try json(TrustedIssuerDocument(trust))))
        let provider = IdentityProvider(
            tenantID: "acme", alias: "p", issuer: "https://login.partner.example", clientID: "gw", clientSecret: SecretValue("s"))
        #expect(
            paths(try #require(schemas["IdentityProvider"] as? [String: Any])) == paths(try json(IdentityProviderDocument(provider))))
        let override = LocalizationOverride(locale: "ja", key: "a.key", value: "あ", updatedAt: Date())
        let page = LocalizationPage(items: [override], next: "ja a.key", state: LocalizationState(defaultLocale: "ja", version: 1))
        #expect(paths(try #require(schemas["LocalizationPage"] as? [String: Any])) == paths(try json(page)))
        let report = LocalizationTextsReport(tenant: "acme", locale: "ja", keys: ["a.key"], version: 1)
        #expect(paths(try #require(schemas["LocalizationTextsReport"] as? [String: Any])) == paths(try json(report)))
        let summary = PushMessageSummary(id: "msg_1", clientID: "crm", miniAppID: "hello", createdAt: Date(), counts: [.sent: 1])
        #expect(paths(try #require(schemas["Notification"] as? [String: Any])) == paths(try json(NotificationDocument(summary))))
    }

    /// `code: "…"` / `code = … "…"` / `notFoundCode: "…"` literals in the Swift files under `folders`.
    static func problemCodes(in folders: [String], excluding excluded: [String]) throws -> Set<String> {
        let root = RepositoryFile.root
        let pattern = try NSRegularExpression(pattern: #"[cC]ode(: | = )[^"\n]{0,40}"([a-z]+(_[a-z]+)*)""#)
        var codes: Set<String> = []
        for module in folders {
            let files = FileManager.default.enumerator(
                at: root.appendingPathComponent(module), includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift",
                    !excluded.contains(where: { file.path.contains(root.appendingPathComponent($0).path + "/") })
                else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 2), in: text) { codes.insert(String(text[range])) }
                }
            }
        }
        return codes
    }

    /// The description of `Problem.code` (or of the `Problem` schema itself when `field` is nil).
    static func documentedCodes(_ document: [String: Any], in schema: String = "Problem", field: String? = "code") throws -> String {
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let problem = try #require(schemas[schema] as? [String: Any])
        guard let field else { return try #require(problem["description"] as? String) }
        let properties = try #require(problem["properties"] as? [String: Any])
        return try #require((properties[field] as? [String: Any])?["description"] as? String)
    }

    @Test("every error response shows each code it can carry as an example, with its own status and a documented code")
    func errorResponsesHaveExamples() throws {
        let document = try RepositoryFile.contract()
        func resolve(_ node: Any?) -> [String: Any] {
            var node = node as? [String: Any] ?? [:]
            while let reference = node["$ref"] as? String {
                var target: Any? = document
                for part in reference.dropFirst(2).split(separator: "/") {
                    target = (target as? [String: Any])?[String(part)]
                }
                node = target as? [String: Any] ?? [:]
            }
            return node
        }
        let schemas = resolve(["$ref": "#/components/schemas/Problem"])
        let documented = try #require(
            ((schemas["properties"] as? [String: Any])?["code"] as? [String: Any])?["description"] as? String)
        var checked = 0
        for (path, item) in try #require(document["paths"] as? [String: Any]) {
            for (method, op) in (item as? [String: Any]) ?? [:]
            where ["get", "post", "put", "delete", "patch"].contains(method) {
                for (status, response) in (resolve(op)["responses"] as? [String: Any]) ?? [:]
                where status.hasPrefix("4") || status.hasPrefix("5") {
                    for (type, content) in (resolve(response)["content"] as? [String: Any]) ?? [:]
                    where type.contains("json") {
                        let media = resolve(content)
                        let values =
                            [media["example"]].compactMap { $0 }
                            + ((media["examples"] as? [String: Any]) ?? [:]).values.map { resolve($0)["value"] as Any }
                        #expect(!values.isEmpty, "\(method.uppercased()) \(path) \(status) \(type) has no example")
                        for value in values.compactMap({ $0 as? [String: Any] }) {
                            checked += 1
                            if type == "application/problem+json" {
                                let code = value["code"] as? String ?? ""
                                #expect(
                                    value["status"] as? Int == Int(status),
                                    "\(method.uppercased()) \(path) \(status): example \(code) says status \(value["status"] ?? "none")"
                                )
                                #expect(
                                    documented.contains("`\(code)`"),
                                    "\(method.uppercased()) \(path) \(status): example code \(code) is not documented in Problem.code"
                                )
                            } else if path.contains("/ras/") {
                                // The SDKs' shapes: 401/403 carry both spellings of one code; others {code: status, message}.
                                if status == "401" || status == "403" {
                                    #expect(
                                        value["error"] is String
                                            && value["error"] as? String == value["code"] as? String
                                            && value["message"] is String,
                                        "\(method.uppercased()) \(path) \(status): example is not the SDKs' auth error shape"
                                    )
                                } else {
                                    #expect(
                                        value["code"] as? Int == Int(status) && value["message"] is String,
                                        "\(method.uppercased()) \(path) \(status): example is not {code: \(status), message}"
                                    )
                                }
                            } else if path.hasSuffix("/journeys/{id}") {
                                // A journey's screen again, with what was refused in its messages.
                                let screen = value["screen"] as? [String: Any]
                                let messages = (screen?["messages"] as? [Any])?.count ?? 0
                                #expect(
                                    messages > 0,
                                    "\(method.uppercased()) \(path) \(status): example is no screen with messages")
                            } else {
                                #expect(
                                    value["error"] is String,
                                    "\(method.uppercased()) \(path) \(status) \(type): example has no RFC 6749 error")
                            }
                        }
                    }
                }
            }
        }
        #expect(checked >= 200)
    }

    @Test("the permission-name schema lists exactly the gateway's eight custom permissions")
    func permissionNamesListed() throws {
        let document = try RepositoryFile.contract()
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let listed = try #require((schemas["PermissionName"] as? [String: Any])?["examples"] as? [String])
        #expect(listed.sorted() == CustomPermission.allCases.map(\.rawValue).sorted())
    }
}
