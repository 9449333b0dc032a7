import ArgumentParser
import Foundation
import GatewayCore

/// `gatewayctl release set --tenant T MINIAPP [--stable V] [--candidate V --percent P ...]`
struct ReleaseSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Create or change a mini app's release policy (only the flags given change).",
        discussion: """
            A new --candidate starts active with --percent (default 0) and its own lists and \
            segments; flags given without --candidate change the current candidate. Steps raise \
            the share at their times: --step 10@2026-12-01T12:00:00Z or --step 50@+1d (+m, +h, +d \
            from now). Users files hold one user id (token subject) per line; blank lines and \
            lines starting with # are skipped; - reads standard input.
            """)

    @OptionGroup var target: ReleaseTargetOptions
    @Option(help: ArgumentHelp("The version everyone else gets (`latest`: the platform's latest).", valueName: "version"))
    var stable: String?
    @Option(help: ArgumentHelp("The version to roll out.", valueName: "version")) var candidate: String?
    @Flag(help: "Drop the candidate: everyone gets stable.") var noCandidate = false
    @Option(help: ArgumentHelp("The candidate's share of users, 0-100 with up to two decimals.", valueName: "percent"))
    var percent: String?
    @Option(help: ArgumentHelp("A later share at a time (repeatable, in time order).", valueName: "percent@time"))
    var step: [String] = []
    @Option(help: ArgumentHelp("Users who always get the candidate (at most 100,000).", valueName: "file"))
    var allowUsersFile: String?
    @Option(help: ArgumentHelp("Users who never get the candidate.", valueName: "file")) var denyUsersFile: String?
    @Option(help: ArgumentHelp("Host-app versions the candidate reaches, e.g. '>=2.4 <3' (`any`: all).", valueName: "range"))
    var hostVersion: String?
    @Option(help: ArgumentHelp("Platforms the candidate reaches (repeatable; `any`: all).", valueName: "ios|android"))
    var platform: [String] = []
    @Option(help: ArgumentHelp("Locales the candidate reaches (repeatable; `any`: all).", valueName: "tag"))
    var locale: [String] = []
    @Option(help: ArgumentHelp("Halt when the candidate's error rate exceeds this many times stable's.", valueName: "ratio"))
    var haltErrorRatio: Double?
    @Option(help: ArgumentHelp("...once the candidate has this many opens in the window (default 200).", valueName: "n"))
    var haltMinOpens: Int?
    @Option(
        help: ArgumentHelp(
            "...and this many distinct users on each side who were served their version (default 50).",
            valueName: "n"))
    var haltMinUsers: Int?
    @Flag(help: "Never halt by itself.") var noAutoHalt = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let stable, stable != "latest", !ReleasePolicyRules.isVersion(stable) {
            throw ValidationError("--stable must be a version id (1-64 of letters, digits, '.', '_', '-', '+') or latest")
        }
        if let candidate, !ReleasePolicyRules.isVersion(candidate) {
            throw ValidationError("--candidate must be a version id (1-64 of letters, digits, '.', '_', '-', '+')")
        }
        if noCandidate, candidate != nil { throw ValidationError("--candidate and --no-candidate exclude each other") }
        if let percent, RolloutPercent(percent) == nil {
            throw ValidationError("--percent must be 0-100 with at most two decimals (got \(percent.prefix(40)))")
        }
        if let hostVersion, hostVersion != "any", HostVersionRange(hostVersion) == nil {
            throw ValidationError("--host-version must be a range such as '>=2.4 <3', '<3.1' or '=2.5' (or any)")
        }
        for name in platform where name != "any" && ClientPlatform(rawValue: name.lowercased()) == nil {
            throw ValidationError("--platform must be ios, android or any (got \(name.prefix(40)))")
        }
        for tag in locale where tag != "any" && !Self.isLanguageTag(tag) {
            throw ValidationError("--locale must be a language tag such as ja or en-US (got \(tag.prefix(40)))")
        }
        if noAutoHalt, haltErrorRatio != nil || haltMinOpens != nil || haltMinUsers != nil {
            throw ValidationError("--no-auto-halt excludes --halt-error-ratio, --halt-min-opens and --halt-min-users")
        }
        if haltMinOpens != nil, haltErrorRatio == nil { throw ValidationError("--halt-min-opens needs --halt-error-ratio") }
        if haltMinUsers != nil, haltErrorRatio == nil { throw ValidationError("--halt-min-users needs --halt-error-ratio") }
    }

    func run() async throws {
        let context = try CLIContext.require()
        let now = Date()
        let steps = try step.map { try Self.step($0, now: now) }
        let allow = try allowUsersFile.map { try ReleaseUsersFile.read($0, flag: "--allow-users-file", context: context) }
        let deny = try denyUsersFile.map { try ReleaseUsersFile.read($0, flag: "--deny-users-file", context: context) }
        let access = try await ReleaseAccess(target, global: global, context: context, verb: .update)
        let newVersions = [stable, candidate].compactMap { $0 }.filter { $0 != "latest" }
        try await PlatformVersionCheck.check(
            newVersions, miniAppID: target.miniApp, tenant: access.state.tenant,
            policy: try await access.store.policy(tenantID: target.tenant.tenant, miniAppID: target.miniApp),
            context: context)
        let change = self
        let stored = try await UserStateAccess.mapErrors {
            try await access.service.set(access.target) { policy in
                try change.apply(to: &policy, steps: steps, allow: allow, deny: deny)
            }
        }
        try ReleaseAccess.report(stored, "set", global: global, context: context)
    }

    /// The flags given, applied to the stored policy.
    func apply(
        to policy: inout ReleasePolicy, steps: [RolloutStep], allow: Set<String>?, deny: Set<String>?
    ) throws {
        if let stable { policy.stable = stable == "latest" ? nil : stable }
        if noCandidate { policy.candidate = nil }
        if let candidate, candidate != policy.candidate?.version {
            policy.candidate = ReleaseCandidate(version: candidate, percent: RolloutPercent(basisPoints: 0)!)
        }
        let changesCandidate =
            percent != nil || !step.isEmpty || allow != nil || deny != nil || hostVersion != nil || !platform.isEmpty
            || !locale.isEmpty
        if changesCandidate {
            guard var current = policy.candidate else {
                throw ReleasePolicyError.invalid("there is no candidate to change; give --candidate VERSION")
            }
            if let percent { current.percent = RolloutPercent(percent)! }
            if !step.isEmpty { current.steps = steps }
            if let allow { current.allowUsers = allow }
            if let deny { current.denyUsers = deny }
            if let hostVersion { current.segment.hostVersions = hostVersion == "any" ? nil : HostVersionRange(hostVersion) }
            if !platform.isEmpty {
                current.segment.platforms = Set(platform.compactMap { ClientPlatform(rawValue: $0.lowercased()) })
            }
            if !locale.isEmpty {
                current.segment = ReleaseSegment(
                    hostVersions: current.segment.hostVersions, platforms: current.segment.platforms,
                    locales: Set(locale.filter { $0 != "any" }))
            }
            policy.candidate = current
        }
        if noAutoHalt { policy.autoHalt = nil }
        if let haltErrorRatio {
            policy.autoHalt = AutoHaltRule(
                errorRatio: haltErrorRatio, minOpens: haltMinOpens ?? 200,
                minUsers: haltMinUsers ?? AutoHaltRule.defaultMinUsers)
        }
    }

    /// `PERCENT@TIME`: TIME is ISO 8601 (`2026-12-01T12:00:00Z`) or `+N` minutes/hours/days (`+30m`, `+2h`, `+1d`).
    static func step(_ text: String, now: Date) throws -> RolloutStep {
        let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
        guard parts.count == 2, let percent = RolloutPercent(parts[0]) else {
            throw CLIError.invalid("--step must be PERCENT@TIME, such as 10@2026-12-01T12:00:00Z or 50@+1d (got \(text.prefix(60)))")
        }
        let time = parts[1]
        if time.hasPrefix("+"), time.last != "s", let seconds = CLIDuration.seconds(String(time.dropFirst())),
            seconds > 0
        {
            return RolloutStep(percent: percent, at: now.addingTimeInterval(TimeInterval(seconds)))
        }
        guard let date = ISO8601DateFormatter().date(from: time) else {
            throw CLIError.invalid("--step time must be ISO 8601 (2026-12-01T12:00:00Z) or +N[m|h|d] (got \(time.prefix(60)))")
        }
        return RolloutStep(percent: percent, at: date)
    }

    static func isLanguageTag(_ tag: String) -> Bool {
        tag.range(of: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$", options: .regularExpression) != nil
    }
}

/// Users files: one user id per line.
enum ReleaseUsersFile {
    /// The ids of `path`; exit 2 naming the line of a malformed id, or the count over the bound.
    static func read(_ path: String, flag: String, context: CLIContext) throws -> Set<String> {
        let text = String(decoding: try InputFile.read(path, context: context), as: UTF8.self)
        var users = Set<String>()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard ReleasePolicyRules.isUserID(line) else {
                throw CLIError.invalid("\(flag): line \(index + 1) is not a user id (1-255 visible characters, no commas)")
            }
            users.insert(line)
            if users.count > ReleasePolicyRules.maxListedUsers {
                throw CLIError.invalid("\(flag): more than \(ReleasePolicyRules.maxListedUsers) users")
            }
        }
        return users
    }
}
