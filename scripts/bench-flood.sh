#!/usr/bin/env bash
# The connection floods of issue 27 against a release gateway limited to 2,048 descriptors:
# half-sent request heads held and reopened from one address (2,100 connections: its per-address
# cap refuses them) and from ten (5,000: the fair share refuses them), while a probe from another
# address opens a fresh connection once a second. Prints, per case, the probes' slowest answer
# and how many took over 1 s: the figure ConnectionFloodTests used to assert on a debug build
# sharing two cores with the flooder (issue 47 moved it here).
# Usage: scripts/bench-flood.sh [BIN_DIR] [SECONDS]   (default .build/release, 30 s per case)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
seconds=${2:-${FLOOD_SECONDS:-30}}
source scripts/lib.sh
for case in "2100 127.0.0.2" "5000 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6,127.0.0.7,127.0.0.8,127.0.0.9,127.0.0.10,127.0.0.11"; do
  read -r connections sources <<<"$case"
  port=$(scripts/free-port.sh)
  mkdir -p "$work/flood-$connections"
  ( ulimit -n 2048
    GATEWAY_HTTP_PORT=$port GATEWAY_DATABASE_PATH="$work/flood-$connections/gateway.sqlite" GATEWAY_LOG_LEVEL=error \
      GATEWAY_DEMO_CATALOG="" GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) exec "$bin/gateway" serve \
      >"$work/flood-$connections/gateway.log" 2>&1 ) &
  gw=$!
  pids+=($gw)
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/t/demo/v1/host-config" >/dev/null 2>&1 && break; sleep 0.1; done
  python3 Tests/Interop/flood.py --port "$port" --connections "$connections" --sources "$sources" --seconds "$seconds" \
    | tail -1 | python3 -c '
import json, sys
report = json.load(sys.stdin)
probes = report["probes"]
times = sorted(p["seconds"] for p in probes)
late = [p for p in probes if p.get("status") != 200 or p["seconds"] > 1]
held, opened = report["most_held"], report["opened"]
print(f"flood {sys.argv[1]} connections from {sys.argv[2]} address(es): {len(probes)} probes, "
      f"p50 {times[len(times) // 2]:.3f} s, slowest {times[-1]:.3f} s, {len(late)} over 1 s or failed; "
      f"flood held at most {held}, opened {opened}")' "$connections" "$(tr ',' '\n' <<<"$sources" | wc -l)"
  kill "$gw" 2>/dev/null || true
  wait "$gw" 2>/dev/null || true
done
