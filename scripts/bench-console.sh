#!/usr/bin/env bash
# The operator console's pages at scale (issue 49): 1,000 tenants (BENCH_CONSOLE_TENANTS) and
# 1,000,000 audit records in 100 chains (BENCH_AUDIT_RECORDS) on a throwaway PostgreSQL, a
# release policy in one tenant. A person signs in to the console as a browser does (the realm's
# sign-in page, the callback, the session cookie), then each page is fetched 200 times, one at a
# time, and its server time is printed: p50/p95/max milliseconds (target: p95 ≤ 50 ms).
# Usage: scripts/bench-console.sh [BIN_DIR]   (default .build/release; starts its own PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
records=${BENCH_AUDIT_RECORDS:-1000000}
tenants=${BENCH_CONSOLE_TENANTS:-1000}
source scripts/lib.sh
start_postgres
export GATEWAY_DATABASE_URL="$postgres_url" GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) GATEWAY_LOG_LEVEL=error
unset GATEWAY_REDIS_URL GATEWAY_DATABASE_PATH
"$bin/gatewayctl" migrate >/dev/null
password="bench console passphrase $RANDOM$RANDOM"
echo "$password" | "$bin/gatewayctl" operator create alice --platform-admin --password-stdin >/dev/null
started=$(date +%s)
"$bin/gatewayctl" tenant create t0 --display-name "Tenant 0" --platform-url http://127.0.0.1:9 --project-id P1 \
  --subscription-key bench-key >/dev/null
# The other tenants: t0's export (secrets revealed, since sealing binds a secret to its tenant)
# with new ids, imported at once.
"$bin/gatewayctl" tenant export --reveal | python3 -c '
import json, sys
export = json.load(sys.stdin)
template = export["tenants"][0]
export["tenants"] = [dict(template, id=f"t{n}", displayName=f"Tenant {n}") for n in range(1, int(sys.argv[1]))]
json.dump(export, sys.stdout)' "$tenants" >"$work/tenants.json"
"$bin/gatewayctl" tenant import "$work/tenants.json" >/dev/null
"$bin/gatewayctl" release set --tenant t0 hello --stable v1 --candidate v2 --percent 10 >/dev/null 2>&1
seed_audit_records "$postgres_url" "$records" b
echo "console bench: $tenants tenants and $records audit records written in $(( $(date +%s) - started )) s"
http_port=$(scripts/free-port.sh); admin_port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$http_port GATEWAY_ADMIN_PORT=$admin_port "$bin/gateway" serve >"$work/console-gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$http_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
python3 - "$admin_port" "$password" "$tenants" <<'PY'
import http.client, re, statistics, sys, time, urllib.parse
port, password, tenants = sys.argv[1], sys.argv[2], int(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
cookies = {}

def call(method, path, body=None):
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    text = response.read().decode()
    for header, value in response.getheaders():
        if header.lower() == "set-cookie":
            name, _, rest = value.partition("=")
            cookies[name] = rest.split(";")[0]
    return response.status, response.getheader("Location"), text

# Sign in as a browser does: the console's start, the realm's page, the callback.
status, location, _ = call("GET", "/console/sign-in")
status, _, page = call("GET", location)
form = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', page))
form.update(username="alice", password=password)
status, location, _ = call("POST", "/admin/oauth2/authorize", urllib.parse.urlencode(form))
status, location, _ = call("GET", location[location.index("/console"):])
assert status == 303 and location == "/console", (status, location)
first_record = re.search(r'href="/console/audit/(\d+)"', call("GET", "/console/audit?tenant=b7")[2]).group(1)
pages = {
    f"overview ({tenants:,} tenants, 50 a page)": "/console",
    "tenant": "/console/t/t0",
    "release page": "/console/t/t0/miniapps/hello/release",
    "release chart": "/console/t/t0/miniapps/hello/release/chart",
    "notifications": "/console/t/t0/notifications",
    "audit, every chain": "/console/audit",
    "audit, one chain": "/console/audit?tenant=b7",
    "audit, one operator": "/console/audit?operator=op-3",
    "audit record": f"/console/audit/{first_record}",
}
for name, path in pages.items():
    times = []
    for _ in range(200):
        started = time.perf_counter()
        status, _, body = call("GET", path)
        times.append((time.perf_counter() - started) * 1000)
        assert status == 200, (name, status, body[:300])
    times.sort()
    print(f"console bench: {name}: p50 {statistics.median(times):.1f} ms, p95 {times[189]:.1f} ms, "
          f"max {times[-1]:.1f} ms ({len(body) // 1024} KiB, 200 loads)")
PY
