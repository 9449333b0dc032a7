"""The invariants, each a named check over the history (one JSON object per operation, plus
the nemesis' fault events and the processes' exits). Each returns (ok, figure)."""
import collections

# Issue 47: 10 s in every scenario (15 s before; a paused gateway held requests 16.9 s).
HANG_SECONDS = 10.0
# Issue 47: while a gateway is cut off from PostgreSQL, what needs the database is refused at
# once (the breaker opens within 0.95 s of the last answer): the p99 of those refusals.
REFUSAL_P99_SECONDS = 1.0


def refresh_once(history):
    """A refresh token is redeemed at most once."""
    wins = collections.Counter(e["token"] for e in history if e["kind"] in ("refresh", "race", "after_reuse")
                               and e["status"] == 200)
    twice = {token: n for token, n in wins.items() if n > 1}
    return not twice, f"{sum(wins.values())} rotations, {len(twice)} tokens redeemed twice"


def reuse_revokes_family(history):
    """After a detected reuse, the winner's new token is refused by every gateway that answers."""
    checks = [e for e in history if e["kind"] == "family_check"]
    accepted = [e for e in checks if e["status"] == 200]
    return not accepted, f"{len(checks)} follow-up refreshes after a reuse, {len(accepted)} accepted"


def revocation_enforced(history):
    """An acknowledged revocation is enforced by every gateway (within the probe's 15 s, or
    at the latest once the faults healed); the worst delay is the figure."""
    seen = [e["after"] for e in history if e["kind"] == "revoked_seen"]
    finals = [e for e in history if e["kind"] == "revoked_final"]
    still = [e for e in finals if e["status"] != 401]
    worst = max(seen) if seen else 0.0
    return not still, (f"{len(seen)} refusals seen, worst {worst:.2f} s after the ack; "
                       f"{len(finals)} re-probed after healing, {len(still)} still accepted")


def writes_kept(history):
    """An acknowledged storage write is never lost."""
    acked = [e for e in history if e["kind"] == "storage_put" and e["status"] == 200]
    reads = {e["key"]: e for e in history if e["kind"] == "storage_get"}
    lost = [e["key"] for e in acked if e["key"] not in reads or reads[e["key"]]["got"] != e["value"]]
    return not lost, f"{len(acked)} acknowledged writes, {len(lost)} lost"


def reads_not_5xx(history):
    """A read of the cached mini app is never answered 5xx (a copy exists from the first read on)."""
    reads = [e for e in history if e["kind"] == "read"]
    failed = [e for e in reads if e["status"] is not None and e["status"] >= 500]
    return not failed, f"{len(reads)} reads, {len(failed)} answered 5xx" + (
        f" (first: {failed[0]['status']} {failed[0].get('body', '')[:80]})" if failed else "")


# Where each gateway host answers (scripts/chaos/chaos.py's HOSTS).
GATEWAY_ADDRESSES = {"gw1": "10.77.0.31", "gw2": "10.77.0.32", "gw3": "10.77.0.33"}


def stopped_while(entry, history):
    """Whether `entry` went straight to a gateway while that process was stopped (SIGSTOP): no
    server can answer then, only the client's own timeout ends the wait. Through the balancer,
    a stopped replica is the balancer's to route around, and counts."""
    for stop in (e for e in history if e["kind"] == "nemesis" and e["what"] == "SIGSTOP"):
        address = GATEWAY_ADDRESSES.get(stop["target"])
        if not address or address not in str(entry.get("gateway", "")):
            continue
        resumed = next((e["start"] for e in history if e["kind"] == "nemesis" and e["what"] == "SIGCONT"
                        and e["target"] == stop["target"] and e["start"] >= stop["start"]), float("inf"))
        if entry["start"] < resumed and entry["end"] > stop["start"]:
            return True
    return False


def no_hang(history):
    """No request takes longer than its deadline (a direct request to a stopped gateway aside)."""
    probes = ("revoked_seen", "revoked_unseen", "family_check", "tenant_update", "tenant_seen", "tenant_stale",
              "release_update", "release_seen", "release_stale", "push_sent", "push_unsent", "consent_refused")
    timed = [e for e in history if "start" in e and "end" in e and e["kind"] not in probes
             and not stopped_while(e, history)]
    worst = max((e["end"] - e["start"] for e in timed), default=0.0)
    hung = [e for e in timed if e["end"] - e["start"] > HANG_SECONDS]
    return not hung, f"{len(timed)} requests, slowest {worst:.2f} s, {len(hung)} over {HANG_SECONDS:.0f} s"


def database_refusals_fast(history):
    """While PostgreSQL is cut off, requests that need it are refused with 503 within a second
    (p99), not held for the statement deadline."""
    refused = sorted(
        e["end"] - e["start"] for e in history
        if e.get("status") == 503 and "end" in e and "start" in e
        and any(code in e.get("body", "") for code in ("database_unavailable", "temporarily_unavailable")))
    if len(refused) < 10:
        return False, f"only {len(refused)} refusals: the cut-offs refused too little to judge"
    p99 = refused[min(len(refused) - 1, int(len(refused) * 0.99))]
    return p99 <= REFUSAL_P99_SECONDS, (
        f"{len(refused)} refusals, p50 {refused[len(refused) // 2]:.3f} s, p99 {p99:.3f} s, slowest {refused[-1]:.3f} s")


def no_unplanned_exit(history):
    """No gateway (or server) exits except when the nemesis killed it."""
    exits = [e for e in history if e["kind"] == "unplanned_exit"]
    return not exits, f"{len(exits)} unplanned exits" + (f" ({', '.join(e['process'] for e in exits)})" if exits else "")


def progress(history):
    """The workload got work done (a run where nothing succeeded proves nothing)."""
    ok = sum(1 for e in history if e.get("status") == 200 and e["kind"] in ("refresh", "storage_put", "read"))
    return ok >= 50, f"{ok} successful refreshes, writes and reads"


FAULTS = {"kill -9", "partition", "SIGSTOP", "slow + 5 % loss", "SIGTERM"}
# A change acknowledged with no fault on is served everywhere within 2 s (the directory polls
# every 0.5 s; the machine runs nine servers and the workload on two cores).
TENANT_SECONDS = 2.0
# Issue 33: within 1 s of a healing. After a 10 s partition from PostgreSQL this took 2.3-3.3 s
# (refreshes on pool connections cut by the partition), then 1.1-1.7 s (a fresh connection, but
# a SYN lost in the partition is retransmitted only after 1 s, and the release table still read
# through the pool), now 0.5 s (docs/chaos.md).
HEAL_SECONDS = 1.0


def change_served(history, kind):
    """(ok, figure) for changes of `kind` (`tenant`, `release`): every door serves an
    acknowledged change within TENANT_SECONDS of its ack, or within HEAL_SECONDS of the end of
    the fault that kept it (an answer while a fault is on is excused), and all of them after
    the final healing."""
    nemesis = sorted((e["start"], e["what"]) for e in history if e["kind"] == "nemesis")

    def excused_until(t):
        """The latest instant an older answer at t is excused by a fault (or its healing)."""
        before = [(at, what) for at, what in nemesis if at <= t]
        if not before:
            return 0.0
        at, what = before[-1]
        return float("inf") if what in FAULTS else at + HEAL_SECONDS

    stales = [e for e in history if e["kind"] == f"{kind}_stale"]
    late = [e for e in stales if e["start"] > max(e["acked"] + TENANT_SECONDS, excused_until(e["start"]))]
    worst_after_heal = 0.0
    for e in stales:
        healed = [at for at, what in nemesis if at <= e["start"] and what not in FAULTS]
        if healed and healed[-1] > e["acked"] and excused_until(e["start"]) != float("inf"):
            worst_after_heal = max(worst_after_heal, e["start"] - healed[-1])
    seen = [e["after"] for e in history if e["kind"] == f"{kind}_seen"]
    wrong = [e for e in history if e["kind"] == f"{kind}_final" and e["served"] not in e["allowed"]]
    acked = sum(1 for e in history if e["kind"] == f"{kind}_update" and e["status"] == 200)
    return not late and not wrong and acked > 0, (
        f"{acked} acknowledged changes, served everywhere within {max(seen, default=0.0):.2f} s at worst; "
        f"older answers up to {worst_after_heal:.2f} s after a healing; "
        f"{len(late)} past {TENANT_SECONDS:.0f} s (or {HEAL_SECONDS:.0f} s after a healing); "
        f"{len(wrong)} doors wrong after healing")


def tenant_change_served(history):
    """An acknowledged tenant change is served by every door within 2 s of its ack, or within
    1 s of the end of the fault that kept it, and by all of them after healing."""
    return change_served(history, "tenant")


def release_change_served(history):
    """An acknowledged release-policy change is served (the version `miniapps/hello` names) by
    every door within 2 s of its ack, or within 1 s of the end of the fault that kept it, and
    by all of them after healing."""
    return change_served(history, "release")


def storage_cap_held(history):
    """The secure-storage cap is never exceeded: every size report has used <= max, and the
    writes did reach the cap (413 storage_full) so the check meant something."""
    sizes = [e for e in history if e["kind"] == "cap_size" and e.get("used") is not None]
    over = [e for e in sizes if e["used"] > e["max"]]
    full = sum(1 for e in history if e["kind"] == "cap_put" and e["status"] == 413 and e.get("code") == "storage_full")
    worst = max((e["used"] / e["max"] for e in sizes), default=0.0)
    return not over and full > 0, (f"cap reached {full} times, {len(sizes)} size reports, fullest {worst:.1%} of the cap, "
                                   f"{len(over)} over it")


def one_redis_primary(history):
    """After the faults, the sentinels name one Redis primary and the other server is its replica."""
    roles = [e for e in history if e["kind"] == "redis_roles"]
    lone = [e for e in history if e["kind"] == "lone_sentinel"]
    split = [e for e in roles if not e["master"] or e["roles"].get(e["master"]) != "master"
             or list(e["roles"].values()).count("master") != 1]
    moved = [e for e in lone if e["before"] != e["after"]]
    figure = ", ".join(f"primary {e['master']}, roles {e['roles']}" for e in roles)
    if lone:
        figure += f"; a lone sentinel's partition moved the primary {len(moved)} times"
    return not split and not moved, figure


def balancer_hides_restarts(history):
    """Through the load balancer, a rolling restart is invisible: every request answered, none 5xx."""
    through = [e for e in history if e.get("gateway", "").endswith(":80") and e["kind"] not in (
        "revoked_seen", "revoked_unseen", "family_check")]
    failed = [e for e in through if e["status"] is None or e["status"] >= 500]
    first = failed[0] if failed else None
    return not failed, f"{len(through)} requests through the balancer, {len(failed)} unanswered or 5xx" + (
        f" (first: {first['kind']} {first['status']} {first.get('error', first.get('body', ''))[:100]})"
        if first else "")


def pushes(history):
    """The sends with their last status, and how often the fake FCM accepted each nonce."""
    last = {e["id"]: e.get("counts") or {} for e in history if e["kind"] == "push_status"}
    sent = [dict(e, counts=last.get(e["id"], {})) for e in history if e["kind"] == "push_sent"]
    return sent, collections.Counter(e["nonce"] for e in history if e["kind"] == "fcm_accepted")


def push_delivered(history):
    """A notification sent while the user allows them reaches FCM (at least once; repeats are
    the figure: delivery is at least once by design) and its status ends `sent`."""
    sent, accepted = pushes(history)
    allowed = [e for e in sent if e["consent"] == "ALLOWED"]
    missing = [e for e in allowed if not accepted[e["nonce"]] or e["counts"].get("sent") != 1]
    repeats = sum(accepted[e["nonce"]] - 1 for e in allowed if accepted[e["nonce"]] > 1)
    return bool(allowed) and not missing, (
        f"{len(allowed)} sent while allowed, {len(missing)} not delivered or not `sent`"
        + (f" (first: {missing[0]['nonce']} counts {missing[0]['counts']}, FCM {accepted[missing[0]['nonce']]}×)"
           if missing else "") + f"; {repeats} repeated calls to FCM")


def push_consent_respected(history):
    """A notification sent after the user's acknowledged denial never reaches FCM and ends
    `skippedNoConsent`."""
    sent, accepted = pushes(history)
    denied = [e for e in sent if e["consent"] == "DENIED"]
    leaked = [e for e in denied if accepted[e["nonce"]] or e["counts"].get("skippedNoConsent") != 1]
    return bool(denied) and not leaked, (
        f"{len(denied)} sent while denied, {len(leaked)} delivered or not skipped"
        + (f" (first: counts {leaked[0]['counts']}, FCM {accepted[leaked[0]['nonce']]}×)" if leaked else ""))


CHECKS = [refresh_once, reuse_revokes_family, revocation_enforced, writes_kept, reads_not_5xx, no_hang,
          no_unplanned_exit, progress, one_redis_primary, tenant_change_served, release_change_served, storage_cap_held, push_delivered,
          push_consent_respected]
SCENARIO_CHECKS = {"rolling-restart": [balancer_hides_restarts], "partition-pg": [database_refusals_fast]}


def check(history, scenario):
    return [(check.__name__, check.__doc__.strip().split("\n")[0], *check(history))
            for check in CHECKS + SCENARIO_CHECKS.get(scenario, [])]
