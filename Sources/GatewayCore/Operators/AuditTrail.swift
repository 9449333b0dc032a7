import Foundation

/// The append-only, hash-chained audit trail (issue 48): one chain per tenant and one for
/// the platform, in the database every replica shares.
public protocol AuditTrail: Sendable {
    /// Appends `draft` at the end of its chain (``AuditDraft/chain``), sealed; returns it.
    /// Appends to one chain are serialised: two writers never take the same sequence.
    @discardableResult
    func append(_ draft: AuditDraft) async throws -> AuditRecord

    /// Records matching `query`, newest first (or oldest first), one page.
    func records(matching query: AuditQuery) async throws -> AuditPage

    /// Every chain that has a record.
    func chainNames() async throws -> [String]

    /// Up to `limit` rows of `chain` with sequence above `afterSequence`, by sequence (the rows
    /// as stored, for ``AuditVerifier``).
    func rows(chain: String, afterSequence: Int64, limit: Int) async throws -> [AuditRow]

    /// The last record id from before the trail's views (release history, the tenant log)
    /// replaced their own logs: records after it are the views, rows of those logs came before.
    func viewsCutover() async throws -> Int64

    /// The checkpoint `chain` starts after, once retention pruned its head (nil: none).
    func checkpoint(chain: String) async throws -> AuditCheckpoint?

    /// The newest record of `chain` appended before `beforeMs`, never the chain's newest
    /// record (the next append links to that one): how far retention may prune.
    func lastPrunable(chain: String, beforeMs: Int64) async throws -> AuditRow?

    /// Saves `checkpoint` as its chain's, unless the chain's is already at or past it.
    func saveCheckpoint(_ checkpoint: AuditCheckpoint) async throws

    /// Deletes up to `limit` records of `chain` at or below its checkpoint; returns how many.
    func pruneCovered(chain: String, limit: Int) async throws -> Int
}

extension AuditTrail {
    /// What the views of the trail (release history, the tenant log) show: up to `limit`
    /// entries of the records after the views' cutover that `query` matches, newest first,
    /// then `legacy` (the rows of the log the trail replaced, all older) up to `limit`.
    public func viewEntries<Entry>(
        matching query: AuditQuery, limit: Int, _ entry: (AuditRecord) -> Entry?,
        legacy: (Int) async throws -> [Entry]
    ) async throws -> [Entry] {
        guard limit > 0 else { return [] }
        var query = query
        query.afterID = try await viewsCutover()
        query.limit = min(max(limit, 1), AuditQuery.maxLimit)
        var entries: [Entry] = []
        while entries.count < limit {
            let page = try await records(matching: query)
            entries += page.items.compactMap(entry)
            guard let next = page.next else { break }
            query.cursor = next
        }
        guard entries.count < limit else { return Array(entries.prefix(limit)) }
        return entries + (try await legacy(limit - entries.count))
    }
}

/// Which records a list asks for. Every filter is optional; `cursor` continues a page.
public struct AuditQuery: Sendable, Equatable {
    /// A tenant's chain, or ``AuditChain/platform``.
    public var chain: String?
    /// The actor's subject (an operator id or `local:<user>`).
    public var subject: String?
    public var resourceType: AdminResource?
    /// The resource's id (a mini app's, for its release history).
    public var resourceID: String?
    public var verb: AdminVerb?
    /// Records after this id, whatever the order (the views of the trail start at their cutover).
    public var afterID: Int64?
    /// Records at or after this time.
    public var since: Date?
    /// Records before this time.
    public var until: Date?
    /// The `next` of the page before: records past it in ``oldestFirst`` order.
    public var cursor: Int64?
    /// Oldest first (exports); newest first by default (lists).
    public var oldestFirst: Bool
    /// Records per page (1-``maxLimit``).
    public var limit: Int

    public static let maxLimit = 500

    /// ``subject`` as the `subject` column holds it (control characters made visible).
    public var subjectColumn: String? { subject.map(ControlCharacters.visible) }
    /// ``resourceID`` as the `resource_id` column holds it (control characters made visible).
    public var resourceIDColumn: String? { resourceID.map(ControlCharacters.visible) }

    public init(
        chain: String? = nil, subject: String? = nil, resourceType: AdminResource? = nil, resourceID: String? = nil,
        verb: AdminVerb? = nil, afterID: Int64? = nil, since: Date? = nil, until: Date? = nil, cursor: Int64? = nil,
        limit: Int = 50, oldestFirst: Bool = false
    ) {
        self.resourceID = resourceID
        self.afterID = afterID
        self.oldestFirst = oldestFirst
        self.chain = chain
        self.subject = subject
        self.resourceType = resourceType
        self.verb = verb
        self.since = since
        self.until = until
        self.cursor = cursor
        self.limit = min(max(limit, 1), Self.maxLimit)
    }
}

/// One page of records and where the next one starts (nil: this was the last).
public struct AuditPage: Sendable, Equatable {
    public var items: [AuditRecord]
    public var next: Int64?

    public init(items: [AuditRecord], next: Int64?) {
        self.items = items
        self.next = next
    }
}
