import AdminAPI
import Foundation
import GatewayCore
import OpenAPIRuntime

/// The generated admin server's operations: wire types in, ``AdminService`` decides, wire
/// types out.
struct AdminAPIHandler: APIProtocol {
    let service: AdminService
    let authenticator: OperatorAuthenticator
    let signIn: OperatorSignIn
    /// The operator console's sessions (issue 49).
    let console: ConsoleSessions
    /// The release chart's counts (the halt's counters in the shared cache).
    let releaseSeries: ReleaseHealthSeries
    /// The shared cache, where every replica's tenant traffic is counted (the overview's figures).
    let sharedCache: any Cache
    let clock: WallClock

    func operatorToken(_ input: Operations.OperatorToken.Input) async throws -> Operations.OperatorToken.Output {
        guard case .urlEncodedForm(let form) = input.body else { throw OperatorTokenError.invalidRequest("a form body") }
        var (clientID, secret) = (form.clientId, form.clientSecret)
        if let basic = BasicCredentials(AdminScope.current.headers[.authorization]) {
            guard clientID == nil || clientID == basic.user, secret == nil else {
                throw OperatorTokenError.invalidRequest("one client authentication method")
            }
            (clientID, secret) = (basic.user, basic.password)
        }
        let issuer = AdminScope.current.issuer
        let issued = try await authenticator.token(
            OperatorTokenRequest(
                grantType: form.grantType, clientID: clientID, secret: secret, code: form.code,
                codeVerifier: form.codeVerifier, redirectURI: form.redirectUri, refreshToken: form.refreshToken,
                deviceCode: form.deviceCode, assertion: form.clientAssertion, assertionType: form.clientAssertionType,
                audiences: [issuer + "/oauth2/token", issuer]))
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(
                    .init(
                        accessToken: issued.accessToken, refreshToken: issued.refreshToken, tokenType: .bearer,
                        expiresIn: issued.expiresIn))))
    }

    func adminWhoAmI(_ input: Operations.AdminWhoAmI.Input) async throws -> Operations.AdminWhoAmI.Output {
        let call = try AdminScope.call()
        return .ok(.init(body: .json(Self.view(call.session.caller, call.session.bindings))))
    }

    func adminListAudit(_ input: Operations.AdminListAudit.Input) async throws -> Operations.AdminListAudit.Output {
        let q = input.query
        guard (1...AuditQuery.maxLimit).contains(q.limit ?? 50) else { throw AdminError.badRequest("limit must be 1-500") }
        try AdminInput.check(q.tenant, max: 63, "tenant")
        try AdminInput.check(q._operator, max: 200, "operator")
        // The contract's enum is the role table's resources (a test keeps them equal).
        let resource = q.resource.flatMap { AdminResource(rawValue: $0.rawValue) }
        var cursor: Int64?
        if let text = q.cursor {
            guard let value = Int64(text), value > 0 else { throw AdminError.badRequest("cursor is a page's next") }
            cursor = value
        }
        let page = try await service.audit(
            try AdminScope.call(),
            query: AuditQuery(
                chain: q.tenant, subject: q._operator, resourceType: resource,
                verb: q.verb.flatMap { AdminVerb(rawValue: $0.rawValue) }, since: q.since, until: q.until,
                cursor: cursor, limit: q.limit ?? 50))
        return .ok(.init(body: .json(.init(items: try page.items.map(Self.record), next: page.next.map(String.init)))))
    }

    static func etag(_ tenant: Tenant) -> String { etag(tenant.configVersion) }

    static func etag(_ revision: Int64) -> String { "\"\(revision)\"" }

    /// `"17"` (or `W/"17"`) as a revision; anything else is a bad request.
    static func revision(_ ifMatch: String) throws -> Int64 {
        let bare = ifMatch.hasPrefix("W/") ? ifMatch.dropFirst(2) : Substring(ifMatch)
        // The contract's pattern: `(W/)?"[0-9]{1,18}"` (no sign: `"-1"` is refused, issue 62 §3).
        let digits = bare.dropFirst().dropLast()
        guard bare.count >= 3, bare.count <= 20, bare.first == "\"", bare.last == "\"",
            digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits)
        else { throw AdminError.badRequest("If-Match is a revision's ETag, e.g. \"17\"") }
        return value
    }

    /// A record in the contract's shape, through JSON (the record's own Codable form).
    static func record(_ record: AuditRecord) throws -> Components.Schemas.AuditRecord {
        try wire(AuditRecordDocument(record), as: Components.Schemas.AuditRecord.self)
    }

    /// `value` as the generated type of the same shape, through JSON (dates as RFC 3339).
    static func wire<Wire: Decodable>(_ value: some Encodable, as type: Wire.Type) throws -> Wire {
        try wire(json: json(value), as: type)
    }

    /// JSON text (sorted keys, dates as RFC 3339) as the generated type of its shape.
    static func wire<Wire: Decodable>(json: String, as: Wire.Type) throws -> Wire {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
            }
            return date
        }
        return try decoder.decode(Wire.self, from: Data(json.utf8))
    }

    /// `value` as JSON text: sorted keys, dates as RFC 3339 with milliseconds.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.millisecondString(from: date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// What makes two requests the same for `Idempotency-Key`: the operation, its path and
    /// preconditions, and the body (as JSON with sorted keys), hashed.
    static func fingerprint(_ parts: String..., body: some Encodable) throws -> String {
        AdminIdempotency.fingerprint(parts.joined(separator: "\n") + "\n" + (try json(body)))
    }
}
