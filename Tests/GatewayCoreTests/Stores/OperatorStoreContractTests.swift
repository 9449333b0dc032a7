import Foundation
import Testing
@testable import GatewayCore

/// Operators, role bindings and the hash-chained audit trail on both engines (issue 48).
@Suite("Operator store and audit trail contract")
struct OperatorStoreContractTests {
    static let root = AuditActor.local(user: "root")
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func service(_ database: TestDatabase) -> OperatorService {
        OperatorService(
            operators: database.stores.operators, clock: WallClock { start }, hasher: PasswordHasher(logN: 10))
    }

    @Test(arguments: StoreBackend.available)
    func createBindUnbind(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        try await database.stores.tenants.create(Tenant(id: "acme", displayName: "Acme"), actor: "t")
        let service = Self.service(database)
        let alice = try await service.create(
            name: "alice", credential: .password("correct horse"), roles: [(.platformAdmin, nil)], actor: Self.root)
        #expect(alice.secret == nil)
        let stored = try #require(try await database.stores.operators.findOperator(named: "alice"))
        #expect(stored.kind == .person && PasswordHasher(logN: 10).verify("correct horse", against: stored.passwordHash ?? ""))
        let bot = try await service.create(name: "ci-bot", credential: .generatedSecret, actor: Self.root)
        let secret = try #require(bot.secret)
        #expect(ClientSecret.verify(secret, hash: try #require(bot.createdOperator.secretHash)))

        await #expect(throws: OperatorError.nameTaken("alice")) {
            try await service.create(name: "alice", credential: .password("another one"), actor: Self.root)
        }
        await #expect(throws: OperatorError.unknownTenant("nope")) {
            try await service.bind(name: "ci-bot", role: .releaseManager, tenantID: "nope", actor: Self.root)
        }
        await #expect(throws: OperatorError.self) {
            try await service.bind(name: "ci-bot", role: .platformAdmin, tenantID: "acme", actor: Self.root)
        }
        await #expect(throws: OperatorError.unknownOperator("bob")) {
            try await service.bind(name: "bob", role: .viewer, tenantID: nil, actor: Self.root)
        }
        // Refused writes wrote nothing: the tenant's and two operators' creations audited so far.
        #expect(try await database.integer("SELECT COUNT(*) FROM audit_records") == 3)
        #expect(try await database.integer("SELECT COUNT(*) FROM operator_bindings") == 1)

        #expect(try await service.bind(name: "ci-bot", role: .releaseManager, tenantID: "acme", miniAppIDs: ["hello"], actor: Self.root))
        #expect(try await service.bind(name: "ci-bot", role: .releaseManager, tenantID: "acme", miniAppIDs: ["hello"], actor: Self.root) == false)
        #expect(try await service.bind(name: "ci-bot", role: .releaseManager, tenantID: "acme", miniAppIDs: ["hello", "pay"], actor: Self.root))
        #expect(try await service.bind(name: "ci-bot", role: .auditor, tenantID: nil, actor: Self.root))
        let listed = try await service.list()
        #expect(listed.map(\.operator.name) == ["alice", "ci-bot"])
        #expect(listed[1].bindings.map(\.label).sorted() == ["auditor@platform", "release-manager@acme[hello,pay]"])
        // The list reads every binding at once, each in the order one operator's read gives.
        for entry in listed {
            #expect(try await database.stores.operators.bindings(operatorID: entry.operator.id) == entry.bindings)
        }
        #expect(try await database.stores.operators.allBindings().count == 3)
        #expect(try await service.unbind(name: "ci-bot", role: .releaseManager, tenantID: "acme", actor: Self.root))
        #expect(try await service.unbind(name: "ci-bot", role: .releaseManager, tenantID: "acme", actor: Self.root) == false)
        #expect(try await database.stores.operators.bindings(operatorID: bot.createdOperator.id).map(\.label) == ["auditor@platform"])

        // Deleting the tenant takes its bindings with it.
        #expect(try await service.bind(name: "alice", role: .viewer, tenantID: "acme", actor: Self.root))
        try await database.stores.tenants.delete(id: "acme", actor: "t")
        #expect(try await database.stores.operators.bindings(operatorID: stored.id).map(\.label) == ["platform-admin@platform"])

        // Every change landed in its chain: creations and platform bindings in the platform's,
        // acme's bindings in acme's; each record names the actor and the roles before and after.
        let platform = try await database.stores.audit.records(matching: AuditQuery(chain: AuditChain.platform))
        #expect(platform.items.count == 3)
        let acme = try await database.stores.audit.records(matching: AuditQuery(chain: "acme"))
        // acme's: created, three binding changes, alice's binding, deleted.
        #expect(acme.items.map(\.sequence) == [6, 5, 4, 3, 2, 1])
        #expect(acme.items.first?.note?.action == "delete" && acme.items.last?.note?.action == "create")
        let unbound = try #require(acme.items.dropFirst(2).first)
        #expect(unbound.actor.subject == "local:root" && unbound.resource.id == bot.createdOperator.id)
        #expect(unbound.change?.before == .object(["roles": .array(["auditor@platform", "release-manager@acme[hello,pay]"])]))
        #expect(unbound.change?.after == .object(["roles": .array(["auditor@platform"])]))
        for chain in [AuditChain.platform, "acme"] {
            #expect(try await AuditVerifier.verify(database.stores.audit, chain: chain).broken == nil)
        }
    }

    /// Idempotency keys: claimed once (concurrent claims: one wins), replayed after completion,
    /// refused for another request, free again after a failure or expiry, per operator.
    @Test(arguments: StoreBackend.available)
    func idempotencyKeys(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let service = Self.service(database)
        let alice = try await service.create(name: "alice", credential: .generatedSecret, actor: Self.root).createdOperator
        let bob = try await service.create(name: "bob", credential: .generatedSecret, actor: Self.root).createdOperator
        let store = database.stores.idempotency
        let lease = Self.start.addingTimeInterval(60)

        let claims = try await withThrowingTaskGroup(of: IdempotencyClaim.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.claim(operatorID: alice.id, key: "k1", fingerprint: "f", now: Self.start, leaseUntil: lease)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(claims.filter { $0 == .claimed }.count == 1 && claims.filter { $0 == .inProgress }.count == 7)
        #expect(try await store.claim(operatorID: alice.id, key: "k1", fingerprint: "g", now: Self.start, leaseUntil: lease) == .mismatch)
        // Another operator's key of the same name is its own.
        #expect(try await store.claim(operatorID: bob.id, key: "k1", fingerprint: "g", now: Self.start, leaseUntil: lease) == .claimed)

        let answer = IdempotentResponse(status: 200, etag: "\"2\"", body: #"{"revision":2}"#)
        try await store.complete(operatorID: alice.id, key: "k1", response: answer, keepUntil: Self.start.addingTimeInterval(86_400))
        #expect(try await store.claim(operatorID: alice.id, key: "k1", fingerprint: "f", now: Self.start, leaseUntil: lease) == .replay(answer))
        // Abandoning a completed key changes nothing; an unfinished one is free again.
        try await store.abandon(operatorID: alice.id, key: "k1")
        #expect(try await store.claim(operatorID: alice.id, key: "k1", fingerprint: "f", now: Self.start, leaseUntil: lease) == .replay(answer))
        try await store.abandon(operatorID: bob.id, key: "k1")
        #expect(try await store.claim(operatorID: bob.id, key: "k1", fingerprint: "h", now: Self.start, leaseUntil: lease) == .claimed)
        // A claim whose call never finished lapses at its lease; an answer at its keep.
        let later = Self.start.addingTimeInterval(61)
        #expect(
            try await store.claim(operatorID: bob.id, key: "k1", fingerprint: "i", now: later, leaseUntil: later.addingTimeInterval(60))
                == .claimed)
        let dayLater = Self.start.addingTimeInterval(86_401)
        #expect(
            try await store.claim(operatorID: alice.id, key: "k1", fingerprint: "j", now: dayLater, leaseUntil: dayLater.addingTimeInterval(60))
                == .claimed)
    }

    @Test(arguments: StoreBackend.available)
    func queriesPageAndFilter(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        for index in 0..<25 {
            let tenant = ["acme", "beta", nil][index % 3]
            let actor = index % 2 == 0 ? Self.root : AuditActor(subject: "op-1", name: "alice", roles: ["platform-admin@platform"])
            try await trail.append(
                AuditDraft(
                    time: Self.start.addingTimeInterval(Double(index)), actor: actor, verb: index % 5 == 0 ? .act : .update,
                    resource: AuditResource(type: index % 4 == 0 ? .release : .tenant, tenant: tenant, id: "r\(index)"),
                    outcome: AuditOutcome(status: index == 7 ? 403 : 200, code: index == 7 ? "forbidden" : nil)))
        }
        var seen: [Int64] = []
        var query = AuditQuery(limit: 10)
        while true {
            let page = try await trail.records(matching: query)
            seen += page.items.map(\.id)
            guard let next = page.next else { break }
            query.cursor = next
        }
        #expect(seen.count == 25 && seen == seen.sorted(by: >))
        var ascending: [Int64] = []
        var forward = AuditQuery(limit: 7, oldestFirst: true)
        while true {
            let page = try await trail.records(matching: forward)
            ascending += page.items.map(\.id)
            guard let next = page.next else { break }
            forward.cursor = next
        }
        #expect(ascending == seen.reversed())
        let acme = try await trail.records(matching: AuditQuery(chain: "acme", limit: 100)).items
        #expect(acme.count == 9 && acme.allSatisfy { $0.resource.tenant == "acme" })
        #expect(acme.map(\.sequence) == Array((1...9).reversed()))
        let alice = try await trail.records(matching: AuditQuery(subject: "op-1", limit: 100)).items
        #expect(alice.count == 12 && alice.allSatisfy { $0.actor.name == "alice" })
        let acts = try await trail.records(matching: AuditQuery(resourceType: .release, verb: .act, limit: 100)).items
        #expect(acts.map(\.resource.id) == ["r20", "r0"])
        let window = try await trail.records(
            matching: AuditQuery(since: Self.start.addingTimeInterval(5), until: Self.start.addingTimeInterval(8))).items
        #expect(window.map(\.resource.id) == ["r7", "r6", "r5"])
        #expect(window.first?.outcome == AuditOutcome(status: 403, code: "forbidden"))
        #expect(try await trail.chainNames() == [AuditChain.platform, "acme", "beta"].sorted())
    }

    /// Tampering straight in the database: the verifier names the first record that does not hold.
    @Test(arguments: StoreBackend.available)
    func tamperingIsNamed(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        func fill(_ chain: String) async throws -> [AuditRecord] {
            var records: [AuditRecord] = []
            for index in 0..<6 {
                records.append(
                    try await trail.append(
                        AuditDraft(
                            time: Self.start.addingTimeInterval(Double(index)), actor: Self.root, verb: .update,
                            resource: AuditResource(type: .tenant, tenant: chain, id: chain),
                            outcome: .ok, change: AuditChange(before: .object(["n": .number(Double(index))]), after: nil))))
            }
            return records
        }
        let edited = try await fill("edited"), removed = try await fill("removed")
        let reordered = try await fill("reordered"), column = try await fill("column"), intact = try await fill("intact")
        let verify = { (chain: String) async throws -> AuditVerifier.Break? in
            let verification = try await AuditVerifier.verify(trail, chain: chain, pageSize: 4)
            return verification.broken
        }
        for chain in ["edited", "removed", "reordered", "column", "intact"] { #expect(try await verify(chain) == nil) }

        // A body edited in place: that record.
        try await database.execute(
            "UPDATE audit_records SET body = REPLACE(body, '\"n\":2', '\"n\":9') WHERE id = \(edited[2].id)")
        let editedBreak = try #require(try await verify("edited"))
        #expect(editedBreak.recordID == edited[2].id && editedBreak.reason.contains("hash"))
        // A record deleted: the one after the gap.
        try await database.execute("DELETE FROM audit_records WHERE id = \(removed[3].id)")
        let removedBreak = try #require(try await verify("removed"))
        #expect(removedBreak.recordID == removed[4].id && removedBreak.reason.contains("removed"))
        // Two records swapped: the first of them.
        try await database.execute("UPDATE audit_records SET sequence = -1 WHERE id = \(reordered[1].id)")
        try await database.execute("UPDATE audit_records SET sequence = 2 WHERE id = \(reordered[2].id)")
        try await database.execute("UPDATE audit_records SET sequence = 3 WHERE id = \(reordered[1].id)")
        let reorderedBreak = try #require(try await verify("reordered"))
        #expect(reorderedBreak.recordID == reordered[2].id)
        // A filter column changed without its body (the actor hidden from lists).
        try await database.execute("UPDATE audit_records SET subject = 'someone-else' WHERE id = \(column[4].id)")
        let columnBreak = try #require(try await verify("column"))
        #expect(columnBreak.recordID == column[4].id && columnBreak.reason.contains("columns"))
        // Untouched chains still verify, with every record counted.
        let untouched = try await AuditVerifier.verify(trail, chain: "intact", pageSize: 4)
        #expect(untouched.broken == nil && untouched.intactRecords == intact.count)

        // A second edit later in a broken chain is named too (issue 62): the first break does not
        // hide it, across pages.
        try await database.execute("UPDATE audit_records SET subject = 'x' WHERE id = \(edited[5].id)")
        let every = try await AuditVerifier.verify(trail, chain: "edited", pageSize: 4)
        #expect(every.breaks.map(\.recordID) == [edited[2].id, edited[5].id], "\(every.breaks)")
        #expect(every.brokenRecords == 2 && every.intactRecords == 4)
        // After a removed record the walk goes on from the next one: nothing else is named.
        let gap = try await AuditVerifier.verify(trail, chain: "removed", pageSize: 4)
        #expect(gap.breaks.map(\.recordID) == [removed[4].id] && gap.intactRecords == 4)
    }

    /// Control characters in a record's actor or resource id (issue 62 §2): the sealed body keeps
    /// them, the filter columns hold a visible form that either engine can store (SQLite through
    /// GRDB would cut at U+0000; PostgreSQL's text refuses it), and the chain verifies.
    @Test(arguments: StoreBackend.available)
    func controlCharactersKeepTheChainIntact(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let trail = database.stores.audit
        let odd = "globex\u{0}tail\u{1B}[31m\u{7F}"
        for id in [odd, "globex"] {
            try await trail.append(
                AuditDraft(
                    time: Self.start, actor: .local(user: "vi\u{0}ewer"), verb: .read,
                    resource: AuditResource(type: .tenant, tenant: nil, id: id), outcome: AuditOutcome(status: 404, code: "not_found")))
        }
        let verification = try await AuditVerifier.verify(trail, chain: AuditChain.platform)
        #expect(verification.broken == nil && verification.intactRecords == 2, "\(verification.breaks)")
        // The body round-trips the whole value; the filter finds it by the value it was given.
        let found = try await trail.records(matching: AuditQuery(resourceID: odd)).items
        #expect(found.map(\.resource.id) == [odd])
        #expect(found.first?.actor.subject == "local:vi\u{0}ewer")
        #expect(try await trail.records(matching: AuditQuery(resourceID: "globex")).items.map(\.resource.id) == ["globex"])
        #expect(try await trail.records(matching: AuditQuery(subject: "local:vi\u{0}ewer")).items.count == 2)
        let column = try await database.string("SELECT resource_id FROM audit_records WHERE resource_id <> 'globex'")
        #expect(column == "globex\u{FFFD}tail\u{FFFD}[31m\u{FFFD}")
    }

    /// Two processes appending to one chain at once never fork it (PostgreSQL: the advisory lock).
    @Test(arguments: StoreBackend.available)
    func concurrentAppendsStayOneChain(backend: StoreBackend) async throws {
        let database = try await TestDatabase.make(backend)
        defer { database.remove() }
        let other = try await database.another()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let trail = index % 2 == 0 ? database.stores.audit : other.audit
                group.addTask {
                    try await trail.append(
                        AuditDraft(
                            time: Self.start, actor: Self.root, verb: .act,
                            resource: AuditResource(type: .release, tenant: "acme", id: "hello"), outcome: .ok))
                }
            }
            try await group.waitForAll()
        }
        let verification = try await AuditVerifier.verify(database.stores.audit, chain: "acme")
        #expect(verification.broken == nil && verification.intactRecords == 40)
    }
}
