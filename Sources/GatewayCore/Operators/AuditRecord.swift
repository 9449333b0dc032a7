import Foundation

/// Who did something, as the audit trail records it (issue 48): the operator, the role
/// bindings it held at that moment, how it authenticated and from where.
public struct AuditActor: Sendable, Equatable, Codable {
    /// The operator's id, or `local:<os user>` for a command run on the database itself.
    public var subject: String
    /// The operator's name at that moment.
    public var name: String
    /// The bindings held at that moment (``RoleBinding/label``), sorted.
    public var roles: [String]
    /// How it authenticated; nil for a command on the database.
    public var auth: AuditAuthentication?
    /// The client's address after the trusted-proxy rules.
    public var address: String?
    public var userAgent: String?

    public init(
        subject: String, name: String, roles: [String], auth: AuditAuthentication? = nil, address: String? = nil,
        userAgent: String? = nil
    ) {
        self.subject = subject
        self.name = name
        self.roles = roles.sorted()
        self.auth = auth
        self.address = address
        self.userAgent = userAgent
    }

    /// The gateway itself (the automatic halt of a release, an erased user leaving release
    /// lists): no operator acted.
    public static let gateway = AuditActor(subject: "gateway", name: "gateway", roles: [])

    /// The actor an actor label of the views names (release history, the tenant log):
    /// `gateway` (the automatic halt), else a `gatewayctl` user on the database.
    public static func labelled(_ label: String) -> AuditActor {
        label == gateway.name ? .gateway : .local(user: label)
    }

    /// How the views name this actor: `gateway`, a local user's name, or `operator:NAME`.
    public var label: String {
        if subject == Self.gateway.subject { return Self.gateway.name }
        return subject.hasPrefix("local:") ? name : "operator:\(name)"
    }

    /// A bootstrap command run with the database open (`gatewayctl operator create`):
    /// whoever can do that is root, so the OS user is what there is to record.
    public static func local(user: String) -> AuditActor {
        AuditActor(
            subject: "local:\(user)", name: user, roles: [], auth: AuditAuthentication(method: "database"))
    }
}

/// How an operator proved who it is for one call.
public struct AuditAuthentication: Sendable, Equatable, Codable {
    /// `database` (a local command), `password`, `client_secret`, `private_key_jwt`, ….
    public var method: String
    public var clientID: String?
    /// The access token's `jti`.
    public var tokenID: String?

    public init(method: String, clientID: String? = nil, tokenID: String? = nil) {
        self.method = method
        self.clientID = clientID
        self.tokenID = tokenID
    }
}

/// What was acted on.
public struct AuditResource: Sendable, Equatable, Codable {
    public var type: AdminResource
    /// The tenant it belongs to; nil: the platform (tenants themselves are their own tenant).
    public var tenant: String?
    public var id: String?
    public var revisionBefore: Int64?
    public var revisionAfter: Int64?

    public init(
        type: AdminResource, tenant: String?, id: String?, revisionBefore: Int64? = nil, revisionAfter: Int64? = nil
    ) {
        self.type = type
        self.tenant = tenant
        self.id = id
        self.revisionBefore = revisionBefore
        self.revisionAfter = revisionAfter
    }
}

/// How it ended: the HTTP status the call answered (a local command: 200, or the status
/// the same refusal answers over the API) and the problem code of a refusal.
public struct AuditOutcome: Sendable, Equatable, Codable {
    public var status: Int
    public var code: String?

    public init(status: Int, code: String? = nil) {
        self.status = status
        self.code = code
    }

    public static let ok = AuditOutcome(status: 200)
    public static let created = AuditOutcome(status: 201)
    public static let noContent = AuditOutcome(status: 204)

    /// What the admin API answers a `verb` that succeeded on a resource it creates with 201
    /// and removes with 204 (clients, operators, tenants: issue 62 §3, the trail records the
    /// status the caller got).
    public static func succeeded(_ verb: AdminVerb) -> AuditOutcome {
        switch verb {
        case .create: .created
        case .delete: .noContent
        default: .ok
        }
    }
}

/// The change as documents before and after, secrets masked by whoever writes them.
public struct AuditChange: Sendable, Equatable, Codable {
    public var before: JSONValue?
    public var after: JSONValue?

    public init(before: JSONValue?, after: JSONValue?) {
        self.before = before
        self.after = after
    }

    /// The top-level members of the two documents that differ (all of them when one side is
    /// nil: created or removed), members in `ignoring` aside (what every change moves).
    public static func between(_ old: (some Encodable)?, _ new: (some Encodable)?, ignoring: Set<String>) -> AuditChange {
        func members(_ value: (some Encodable)?) -> [String: JSONValue]? {
            guard let value else { return nil }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(RFC3339.millisecondString(from: date))
            }
            guard let data = try? encoder.encode(value), case .object(let found)? = try? JSONDecoder().decode(JSONValue.self, from: data)
            else { return [:] }
            return found.filter { !ignoring.contains($0.key) }
        }
        let (before, after) = (members(old), members(new))
        guard let before, let after else { return AuditChange(before: before.map(JSONValue.object), after: after.map(JSONValue.object)) }
        let keys = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
        return AuditChange(
            before: .object(before.filter { keys.contains($0.key) }), after: .object(after.filter { keys.contains($0.key) }))
    }
}

/// What a change did, in the words the views of the trail show (`release history`,
/// `tenant audit`): the action (`pause`, `halt`, `suspend`, …), what the resource became and
/// the operator's reason.
public struct AuditNote: Sendable, Equatable, Codable {
    public var action: String
    public var summary: String?
    public var reason: String?

    public init(action: String, summary: String? = nil, reason: String? = nil) {
        self.action = action
        self.summary = summary
        self.reason = reason
    }
}

/// A record about to be appended: everything but its place in the chain.
public struct AuditDraft: Sendable, Equatable {
    public var time: Date
    public var actor: AuditActor
    public var requestID: String?
    public var verb: AdminVerb
    public var resource: AuditResource
    public var outcome: AuditOutcome
    public var change: AuditChange?
    public var note: AuditNote?

    public init(
        time: Date, actor: AuditActor, requestID: String? = nil, verb: AdminVerb, resource: AuditResource,
        outcome: AuditOutcome, change: AuditChange? = nil, note: AuditNote? = nil
    ) {
        self.time = time
        self.actor = actor
        self.requestID = requestID
        self.verb = verb
        self.resource = resource
        self.outcome = outcome
        self.change = change
        self.note = note
    }

    /// The chain it joins: its tenant's, or the platform's.
    public var chain: String { resource.tenant ?? AuditChain.platform }

    /// The record of a tenant's resource written as operators read it: `before` nil, it was
    /// created (`create`, answered `created`); `after` nil, removed (`delete`, 204); else
    /// changed (`update`, 200). The change holds the documents' members that differ.
    public static func documents<Document: Encodable>(
        _ type: AdminResource, tenant: String, id: String, before: Document?, after: Document?, actor: AuditActor,
        requestID: String?, time: Date, created: AuditOutcome = .ok
    ) -> AuditDraft {
        AuditDraft(
            time: time, actor: actor, requestID: requestID,
            verb: before == nil ? .create : after == nil ? .delete : .update,
            resource: AuditResource(type: type, tenant: tenant, id: id),
            outcome: after == nil ? .noContent : before == nil ? created : .ok,
            change: AuditChange.between(before, after, ignoring: ["createdAt"]))
    }
}

/// One record of the trail as stored and sealed: the draft, its place in its chain, the
/// hash of the record before it and its own.
public struct AuditRecord: Sendable, Equatable, Codable {
    /// Position in the whole trail (ascending with time of appending); the cursor of lists.
    public var id: Int64
    /// The tenant's id, or ``AuditChain/platform``.
    public var chain: String
    /// Position in its chain, from 1 with no gaps.
    public var sequence: Int64
    public var timeMs: Int64
    public var actor: AuditActor
    public var requestID: String?
    public var verb: AdminVerb
    public var resource: AuditResource
    public var outcome: AuditOutcome
    public var change: AuditChange?
    public var note: AuditNote?
    public var previousHash: String
    /// SHA-256 (hex) of the sealed body: ``AuditChain/seal(_:chain:sequence:previousHash:)``.
    public var hash: String

    public var time: Date { StoreClock.date(timeMs) }
}
