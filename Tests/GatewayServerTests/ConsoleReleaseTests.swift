import Foundation
import Testing

@testable import GatewayCore
@testable import GatewayServer

/// The console's release page (issue 49) on both engines: the policy and its actions behind
/// a confirmation, the `If-Match` rule between two operators, and a viewer who sees no action
/// and whose forged form is refused and audited.
@Suite("Operator console: releases")
struct ConsoleReleaseTests {
    static let path = "/console/t/acme/miniapps/hello/release"

    @Test(arguments: DatabaseBackend.available)
    func actTwoOperatorsAndAViewer(backend: DatabaseBackend) async throws {
        try await AdminAPITests.withAdmin(backend: backend) { admin in
            try await ConsoleTests.people(
                admin.stores,
                [("rel", .releaseManager, "acme"), ("rel2", .releaseManager, "acme"), ("vic", .viewer, "acme")])
            var policy = ReleasePolicy(tenantID: "acme", miniAppID: "hello", stable: "1.0")
            policy.candidate = ReleaseCandidate(version: "1.1", percent: RolloutPercent("10")!)
            _ = try await admin.stores.releases.save(
                policy, entry: ReleaseHistoryEntry(at: Date(), actor: "t", action: .set, summary: "set"))

            var first = ConsoleTests.Browser(admin: admin)
            _ = try await first.signIn("rel")
            var second = ConsoleTests.Browser(admin: admin)
            _ = try await second.signIn("rel2")
            let overview = try await first.request(.GET, "/console")
            #expect(overview.body.contains("<a href=\"\(Self.path)\">hello</a>"), "\(overview.body)")
            let page = try await first.request(.GET, Self.path)
            #expect(
                page.status == 200 && page.body.contains("<dd>1.1</dd>") && page.body.contains("10 %"), "\(page.body)")
            let csrf = try #require(ConsoleTests.Browser.csrf(page.body))
            let stale = try await second.request(.GET, Self.path)
            let secondCSRF = try #require(ConsoleTests.Browser.csrf(stale.body))

            // Asked first, then confirmed: the page says what happens to whom.
            let share = "csrf_token=\(csrf)&revision=1&action=share&percent=50"
            let confirm = try await first.request(.POST, Self.path, form: share)
            #expect(confirm.status == 200 && confirm.body.contains("Offers 1.1 to 50 % of users"), "\(confirm.body)")
            #expect(try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello")?.revision == 1)
            let done = try await first.request(.POST, Self.path, form: share + "&confirm=yes&reason=looks+good")
            #expect(done.status == 303 && done.headers["Location"].first == Self.path + "?done=share", "\(done.body)")
            let after = try await first.request(.GET, Self.path + "?done=share")
            #expect(after.body.contains("Done: Change the share.") && after.body.contains("(target 50 %)"))
            #expect(after.body.contains("looks good"))

            // The second operator acted on revision 1: its confirmation keeps revision 1 (not the
            // fresh one, which would override the change unseen), so the action is refused,
            // told who and when, and shown the fresh state.
            let staleConfirmation = try await second.request(
                .POST, Self.path, form: "csrf_token=\(secondCSRF)&revision=1&action=pause")
            #expect(staleConfirmation.body.contains("name=\"revision\" value=\"1\""))
            let late = try await second.request(
                .POST, Self.path, form: "csrf_token=\(secondCSRF)&revision=1&action=pause&confirm=yes")
            #expect(late.status == 412 && late.body.contains("changed by operator:rel at"), "\(late.body)")
            #expect(late.body.contains("(target 50 %)"))
            #expect(
                try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello")?.candidate?.state
                    == .active)

            // A viewer sees no action; its forged form (with its own valid token) is refused and audited.
            var viewer = ConsoleTests.Browser(admin: admin)
            _ = try await viewer.signIn("vic")
            let seen = try await viewer.request(.GET, Self.path)
            #expect(seen.status == 200 && !seen.body.contains("class=\"action\""))
            let viewerCSRF = try #require(ConsoleTests.Browser.csrf(seen.body))
            let forged = try await viewer.request(
                .POST, Self.path, form: "csrf_token=\(viewerCSRF)&revision=2&action=pause&confirm=yes")
            #expect(forged.status == 403)
            let refusals = try await admin.stores.audit.records(
                matching: AuditQuery(chain: "acme", resourceType: .release, limit: 20)
            ).items.filter { $0.outcome.status == 403 }
            #expect(refusals.first?.actor.name == "vic" && refusals.first?.outcome.code == "forbidden")
            // A form without the session's token does nothing.
            #expect(
                try await first.request(.POST, Self.path, form: "csrf_token=x&revision=2&action=pause&confirm=yes")
                    .status == 403)
            #expect(try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello")?.revision == 2)
            // The live chart: framed by the page, reloading itself, a chart with words.
            #expect(
                page.body.contains("<iframe class=\"chart-frame\" src=\"/console/t/acme/miniapps/hello/release/chart\"")
            )
            #expect(page.headers["Content-Security-Policy"].first?.contains("frame-src 'self'") == true)
            let chart = try await first.request(.GET, Self.path + "/chart")
            #expect(chart.status == 200 && chart.body.contains("<meta http-equiv=\"refresh\" content=\"30\">"))
            #expect(chart.body.contains("<svg role=\"img\"") && chart.body.contains("No attributable opens of 1.1"))
            #expect(chart.headers["Content-Security-Policy"].first?.contains("frame-ancestors 'self'") == true)
            // Withdraw: the confirmation says what happens to whom, then the version is withdrawn.
            let withdraw = "csrf_token=\(csrf)&revision=2&action=withdraw&version=1.1&use_instead=1.0"
            let asked = try await first.request(.POST, Self.path, form: withdraw)
            #expect(asked.body.contains("Withdraws 1.1: no user is offered it any more"), "\(asked.body)")
            #expect(asked.body.contains("naming 1.0 to use instead"))
            let withdrawn = try await first.request(.POST, Self.path, form: withdraw + "&confirm=yes")
            #expect(withdrawn.status == 303, "\(withdrawn.body)")
            let stored = try await admin.stores.releases.policy(tenantID: "acme", miniAppID: "hello")
            #expect(stored?.withdrawn.map(\.version) == ["1.1"] && stored?.revision == 3)
            // Another tenant's policy is not found, never refused.
            #expect(try await first.request(.GET, "/console/t/beta/miniapps/hello/release").status == 404)
        }
    }
}

/// The release chart: drawn from the halt's own counters, in words as well as lines.
@Suite("Operator console: release chart")
struct ConsoleChartTests {
    @Test func seriesReadTheHaltsCountersPerWindow() async throws {
        let cache = MemoryCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let window = 600.0
        let current = Int64((now.timeIntervalSince1970 / window).rounded(.down))
        for (bucket, side, series, value) in [
            (current, true, ReleaseHealth.Series.opens, 100), (current, true, .failures, 10),
            (current, false, .opens, 200),
            (current, false, .failures, 4), (current - 2, true, .opens, 7),
        ] {
            let key = ReleaseHealth.key("acme", "hello", "1.1", side, series, bucket: bucket)
            _ = try await cache.increment(key, by: Int64(value), ttl: .seconds(60))
        }
        let points = try await ReleaseHealthSeries(cache: cache).points(
            tenantID: "acme", miniAppID: "hello", candidate: "1.1", now: now, count: 3)
        #expect(
            points.map(\.start.timeIntervalSince1970)
                == [current - 2, current - 1, current].map { Double($0) * window })
        #expect(points[0].candidate.opens == 7 && points[1].candidate.opens == 0)
        #expect(points[2].candidate == ReleaseHealth.Tally(opens: 100, failures: 10, users: 0))
        #expect(points[2].stable.rate == 0.02)

        let texts = ConsoleTexts.negotiate([:])
        let svg = ConsoleChart.releaseHealth(
            points, candidate: "1.1<x>", rule: AutoHaltRule(errorRatio: 2, minOpens: 10), texts: texts)
        #expect(svg.hasPrefix("<svg role=\"img\" aria-labelledby=\"chart-title\""))
        #expect(
            svg.contains(
                "<title id=\"chart-title\">In the last window, 1.1&lt;x&gt; failed on 10.0 % of 100 opens, stable on 2.0 % of 200. Halt above 2× stable"
            ))
        // Both rates as lines; the threshold (2 × stable's 2 %) dashed across at 4 %.
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
        let plot = ConsoleChart.height - ConsoleChart.margin.top - ConsoleChart.margin.bottom
        let top = 0.1 * 1.15
        let y = ConsoleChart.margin.top + plot * (1 - 0.04 / top)
        #expect(
            svg.contains(String(format: "<line class=\"threshold\" x1=\"48.0\" x2=\"628.0\" y1=\"%.1f\"", y)), "\(svg)")
        #expect(svg.components(separatedBy: "<rect class=\"opens\"").count - 1 == 3)
        let empty = ConsoleChart.releaseHealth([], candidate: "1.1", rule: nil, texts: texts)
        #expect(empty.contains("No attributable opens of 1.1") && !empty.contains("<polyline"))
    }
}
