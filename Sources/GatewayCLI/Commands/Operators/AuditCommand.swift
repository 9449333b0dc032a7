import ArgumentParser
import Foundation
import GatewayCore
import Logging

/// `gatewayctl audit list|verify`: the hash-chained audit trail of operator actions (issue 48).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read the operators' audit trail and verify that its chains are intact.",
        subcommands: [AuditListCommand.self, AuditVerifyCommand.self, AuditExportCommand.self, AuditPruneCommand.self]
    )
}

/// `--tenant T` or `--platform`: one chain of the trail (neither: every chain).
struct AuditChainOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this tenant's records.", valueName: "id")) var tenant: String?
    @Flag(help: "Only the platform's records (operators, platform-wide bindings).") var platform = false

    func validate() throws {
        if tenant != nil, platform { throw ValidationError("give --tenant or --platform, not both") }
        if let tenant, !TenantID.isValid(tenant) { throw ValidationError("--tenant: '\(tenant)' is not a tenant id") }
    }

    /// The chain asked for (nil: all).
    var chain: String? { platform ? AuditChain.platform : tenant }
}

struct AuditListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List audit records, newest first, one page at a time.")
    @OptionGroup var chain: AuditChainOptions
    @Option(name: .customLong("operator"), help: "Only records of this operator (a name, or local:<user>).")
    var operatorName: String?
    @Option(help: "Only records about this kind of resource (tenant, release, operator, …).") var resource: String?
    @Option(help: "Only this verb (read, create, update, delete, act).") var verb: String?
    @Option(help: "Only records at or after this time (RFC 3339).") var since: String?
    @Option(help: "Only records before this time (RFC 3339).") var until: String?
    @Option(help: "Records per page (1-500).") var limit = 50
    @Option(help: "Continue after a page: the `next` it printed.") var cursor: Int64?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let resource, AdminResource(rawValue: resource) == nil {
            throw ValidationError("--resource must be one of \(AdminResource.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let verb, AdminVerb(rawValue: verb) == nil {
            throw ValidationError("--verb must be one of \(AdminVerb.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for (flag, value) in [("--since", since), ("--until", until)] {
            if let value, RFC3339.date(from: value) == nil { throw ValidationError("\(flag): '\(value)' is not an RFC 3339 time") }
        }
        if !(1...AuditQuery.maxLimit).contains(limit) { throw ValidationError("--limit must be 1-\(AuditQuery.maxLimit)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let page: AuditListPage
        if let remote = try await AdminRemote.select(global, context: context) {
            page = try await remote.auditPage(
                chain: chain.chain, operatorName: operatorName, resource: resource, verb: verb, since: since, until: until,
                cursor: cursor, limit: limit)
        } else {
            page = try await localPage(context)
        }
        if global.json { return try context.printJSON(page) }
        var table = TextTable(header: ["ID", "TIME", "CHAIN", "ACTOR", "VERB", "RESOURCE", "STATUS"])
        for r in page.items {
            let resource = [r.resource.type.rawValue, r.resource.id].compactMap { $0 }.joined(separator: " ")
            table.rows.append([
                r.id, r.time, r.resource.tenant ?? AuditChain.platform, r.actor.name, r.verb, resource,
                String(r.outcome.status) + (r.outcome.code.map { " \($0)" } ?? ""),
            ])
        }
        table.lines.forEach(context.print)
        if let next = page.next { context.printError("more: --cursor \(next)") }
    }

    private func localPage(_ context: CLIContext) async throws -> AuditListPage {
        let access = try await OperatorAccess(global, context: context)
        var subject = operatorName
        if let name = operatorName, !name.hasPrefix("local:") {
            guard let found = try await access.stores.operators.findOperator(named: name) else {
                throw OperatorError.unknownOperator(name)
            }
            subject = found.id
        }
        let query = AuditQuery(
            chain: chain.chain, subject: subject, resourceType: resource.flatMap(AdminResource.init(rawValue:)),
            verb: verb.flatMap(AdminVerb.init(rawValue:)), since: since.flatMap(RFC3339.date(from:)),
            until: until.flatMap(RFC3339.date(from:)), cursor: cursor, limit: limit)
        let page = try await access.stores.audit.records(matching: query)
        return AuditListPage(items: page.items.map(AuditRecordDocument.init), next: page.next.map(String.init))
    }
}

struct AuditVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Walk the audit chains and name every record that was altered, removed or reordered.",
        discussion: """
            Every record that does not hold is named, in chain order (the first \(AuditVerifier.maxBreaksKept) of a \
            chain; the count covers them all). Exit codes: 0 every chain intact, 1 a chain is broken, 2 invalid input.
            """)
    @OptionGroup var chain: AuditChainOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let trail = access.stores.audit
        var chains = try await trail.chainNames()
        if let only = chain.chain { chains = [only] }
        struct Result: Encodable {
            var chain: String
            var records: Int
            var intact: Bool
            /// The first record that does not hold.
            var broken: String?
            /// Every record that does not hold (the first `maxBreaksKept`).
            var breaks: [String]
            var brokenRecords: Int
            var checkpoint: Int64?
        }
        var results: [Result] = []
        for name in chains {
            let verification = try await AuditVerifier.verify(trail, chain: name, signer: access.checkpoints) { checked in
                if checked >= 10_000, checked % 10_000 == 0 { context.printError("chain \(name): \(checked) records checked") }
            }
            results.append(
                Result(
                    chain: name, records: verification.intactRecords, intact: verification.broken == nil,
                    broken: verification.broken?.description, breaks: verification.breaks.map(\.description),
                    brokenRecords: verification.brokenRecords, checkpoint: verification.checkpoint?.sequence))
            if !global.json {
                let start = verification.checkpoint.map { " after the checkpoint at sequence \($0.sequence)" } ?? ""
                if !verification.breaks.isEmpty {
                    context.print(
                        "chain \(name): BROKEN: \(verification.brokenRecords) records do not hold "
                            + "(\(verification.intactRecords) records\(start) hold)")
                    verification.breaks.forEach { context.print("  BROKEN at \($0)") }
                    if verification.brokenRecords > verification.breaks.count {
                        context.print("  … and \(verification.brokenRecords - verification.breaks.count) more")
                    }
                } else {
                    context.print("chain \(name): \(verification.intactRecords) records intact\(start)")
                }
            }
        }
        if global.json { try context.printJSON(results) }
        if results.contains(where: { !$0.intact }) { throw ExitCode(1) }
    }
}

struct AuditExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write audit records as JSON lines, oldest first, for a SIEM (and as an anchor outside the database).",
        discussion: """
            One record per line, in the shape of `audit list --json`, with its hash and the hash \
            before it: a copy held elsewhere shows whether the database's trail was cut short or \
            rewritten since. Resume with --after ID (the last id exported).
            """)
    @OptionGroup var chain: AuditChainOptions
    @Option(help: "Only records at or after this time (RFC 3339).") var since: String?
    @Option(help: "Only records after this id (the last one an earlier export wrote).") var after: Int64?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let since, RFC3339.date(from: since) == nil { throw ValidationError("--since: '\(since)' is not an RFC 3339 time") }
        if let after, after < 0 { throw ValidationError("--after must be an id (0 or more)") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        var query = AuditQuery(
            chain: chain.chain, since: since.flatMap(RFC3339.date(from:)), cursor: after, limit: AuditQuery.maxLimit,
            oldestFirst: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var written = 0
        while true {
            let page = try await access.stores.audit.records(matching: query)
            var lines = ""
            for record in page.items {
                lines += String(decoding: try encoder.encode(AuditRecordDocument(record)), as: UTF8.self) + "\n"
            }
            context.output.writeOutput(lines)
            written += page.items.count
            if written >= 10_000, written % 10_000 < page.items.count { context.printError("exported \(written) records") }
            guard let next = page.next else { break }
            query.cursor = next
        }
        context.printError("exported \(written) records")
    }
}

struct AuditPruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove audit records older than some days, behind a signed checkpoint (what retention does hourly).",
        discussion: """
            Each chain is verified up to the last record to go first: a chain that does not hold \
            is left alone (exit 1) so the evidence stays. Its newest record always stays. Then a \
            checkpoint signed with a key derived from the master key takes the place of the \
            removed records, and `audit verify` starts from it. Servers do the same every hour \
            when GATEWAY_AUDIT_RETENTION_DAYS is set.
            """)
    @Option(help: "Keep records younger than this many days (30-36500).") var olderThanDays: Int
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if !(30...36_500).contains(olderThanDays) { throw ValidationError("--older-than-days must be 30-36500") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let access = try await OperatorAccess(global, context: context)
        let retention = AuditRetention(
            trail: access.stores.audit, signer: access.checkpoints, keepDays: olderThanDays, clock: { Date() },
            
            logger: Logger(label: "gatewayctl", factory: { _ in SwiftLogNoOpLogHandler() }))
        let report = try await retention.prune { chain, removed in
            if removed > 0 { context.printError("chain \(chain): \(removed) records pruned") }
        }
        struct Result: Encodable {
            var removed: Int
            var checkpointed: [String]
            var refused: [String]
        }
        let refused = report.refused.map { "chain \($0.chain): \($0.broken?.description ?? "")" }
        if global.json {
            try context.printJSON(Result(removed: report.removed, checkpointed: report.checkpointed, refused: refused))
        } else {
            context.print("\(report.removed) records pruned; checkpoints moved on \(report.checkpointed.count) chains")
            refused.forEach { context.print("left alone, it does not verify: \($0)") }
        }
        if !refused.isEmpty { throw ExitCode(1) }
    }
}
