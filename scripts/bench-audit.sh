#!/usr/bin/env bash
# The admin API's audit query over a large trail (issue 48): 1,000,000 records in 100 tenant
# chains (BENCH_AUDIT_RECORDS) written straight into a throwaway PostgreSQL database, then a
# release gateway's admin listener answers pages of them to a platform-admin service account:
# a tenant's first page, a page 150 pages deep (by cursor), one operator's records, a time
# window. Prints p50/p95/max milliseconds per query kind (target: p95 ≤ 50 ms).
# Usage: scripts/bench-audit.sh [BIN_DIR]   (default .build/release; starts its own PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
records=${BENCH_AUDIT_RECORDS:-1000000}
source scripts/lib.sh
start_postgres
url="$postgres_url"
export GATEWAY_DATABASE_URL="$url" GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) GATEWAY_LOG_LEVEL=error
unset GATEWAY_REDIS_URL
"$bin/gatewayctl" migrate >/dev/null
secret=$("$bin/gatewayctl" operator create bench --service-account --platform-admin --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["clientSecret"])')
started=$(date +%s)
seed_audit_records "$url" "$records" t
echo "audit bench: $records records in 100 chains written in $(( $(date +%s) - started )) s"
http_port=$(scripts/free-port.sh); admin_port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$http_port GATEWAY_ADMIN_PORT=$admin_port "$bin/gateway" serve >"$work/audit-gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$http_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
python3 - "$admin_port" "$secret" <<'PY'
import json, random, statistics, sys, time, urllib.request
port, secret = sys.argv[1], sys.argv[2]
base = f"http://127.0.0.1:{port}"
def call(path, token=None, data=None):
    request = urllib.request.Request(base + path, data=data)
    if token: request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        return json.load(response)
token = call("/admin/oauth2/token", data=f"grant_type=client_credentials&client_id=bench&client_secret={secret}".encode())["access_token"]
random.seed(7)
deep = {}
for tenant in range(0, 100, 10):  # cursors 150 pages deep, found once (not timed)
    page = call(f"/admin/v1/audit?tenant=t{tenant}&limit=50", token)
    for _ in range(149): page = call(f"/admin/v1/audit?tenant=t{tenant}&limit=50&cursor={page['next']}", token)
    deep[tenant] = page["next"]
kinds = {
    "tenant first page": lambda: f"/admin/v1/audit?tenant=t{random.randrange(100)}&limit=50",
    "tenant page 150 deep": lambda: (lambda t: f"/admin/v1/audit?tenant=t{t}&limit=50&cursor={deep[t]}")(random.choice(list(deep))),
    "one operator": lambda: f"/admin/v1/audit?operator=op-{random.randrange(7)}&limit=50",
    "time window": lambda: (lambda s: f"/admin/v1/audit?since={time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(1800000000 + s))}&until={time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(1800000000 + s + 3600))}&limit=50")(random.randrange(990000)),
}
for name, path in kinds.items():
    times = []
    for _ in range(300):
        started = time.perf_counter(); items = call(path(), token)["items"]; times.append((time.perf_counter() - started) * 1000)
        assert len(items) == 50, (name, len(items))
    times.sort()
    print(f"audit bench: {name}: p50 {statistics.median(times):.1f} ms, p95 {times[284]:.1f} ms, max {times[-1]:.1f} ms (300 pages of 50)")
PY
