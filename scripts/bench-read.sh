#!/usr/bin/env bash
# The read path side by side, in rounds (this machine's noise needs medians, not one pass):
# one cached manifest GET with a bearer token through a gateway whose cache hits the event
# loop answers (fast), through a second gateway on the same database and Redis with that
# fast path off (full), the bare Hummingbird route serving the same bytes, with and without
# the same request headers (bare-same, bare), and nginx proxy_cache in front of the fake
# platform (nginx). Each round runs every peer once (wrk, 2 threads, 64 connections);
# prints every pass, then the medians and their ratios.
# Usage: scripts/bench-read.sh BIN_DIR [ROUNDS] (BENCH_DURATION, default 5s)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?binaries folder (gateway, gatewayctl, bare-route)} rounds=${2:-5} duration=${BENCH_DURATION:-5s}
source scripts/lib.sh
start_redis
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "not up: $1" >&2; return 1; }
export GATEWAY_DATABASE_PATH="$work/gateway.sqlite" GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
export GATEWAY_LOG_LEVEL=error GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
upstream_port=$(scripts/free-port.sh)
python3 scripts/bench-upstream.py "$upstream_port" 20 &
pids+=($!)
fast_port=$(scripts/free-port.sh) full_port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$fast_port "$bin/gateway" serve >"$work/fast.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$fast_port/healthz"
GATEWAY_EDGE_FAST_PATH=off GATEWAY_HTTP_PORT=$full_port "$bin/gateway" serve >"$work/full.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$full_port/healthz"
"$bin/gatewayctl" tenant create bench --display-name Bench --platform-url "http://127.0.0.1:$upstream_port" \
  --project-id P1 --subscription-key bench-key --catalog-ttl 60 --manifest-ttl 300 >/dev/null
"$bin/gatewayctl" client add --tenant bench --client-id bench-app --first-party --redirect-uri http://127.0.0.1/callback >/dev/null
printf 'username: bench\npassword: bench-password-%s\n' "$RANDOM$RANDOM" >"$work/user.txt"
awk '/^password: / {print $2}' "$work/user.txt" | "$bin/gatewayctl" user add --tenant bench --username bench --password-stdin >/dev/null
path=/t/bench/v1/miniapps/app1/versions/v1/manifest
for side in fast full; do
  port_var=${side}_port
  wait_for "http://127.0.0.1:${!port_var}/t/bench/v1/host-config"
  token=$(python3 scripts/demo-token.py "http://127.0.0.1:${!port_var}" "$work/user.txt" bench bench-app)
  printf -v "${side}_auth" 'Authorization: Bearer %s' "$token"
done
curl -fsS -H "$fast_auth" "http://127.0.0.1:$fast_port$path" >"$work/body.json"
curl -fsS -o /dev/null -H "$full_auth" "http://127.0.0.1:$full_port$path"
bare_port=$(scripts/free-port.sh)
"$bin/bare-route" "$bare_port" "$work/body.json" >/dev/null 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$bare_port/bare"
start_nginx_cache "$upstream_port"
nginx_url="http://127.0.0.1:$nginx_port/host/P1/miniapp/app1/version/v1/metadata"
wait_for "$nginx_url"

pass() { # label url [header]: "label req/s p99"
  wrk -t2 -c64 -d"$duration" --latency ${3:+-H "$3"} "$2" |
    awk -v label="$1" '/Requests\/sec/ {rate = $2} $1 == "99%" {p99 = $2} END {print label, rate, p99}'
}
echo "read path, $rounds rounds of $duration per peer (wrk -t2 -c64), $(nproc) cores shared with wrk"
for round in $(seq 1 "$rounds"); do
  pass fast "http://127.0.0.1:$fast_port$path" "$fast_auth"
  pass full "http://127.0.0.1:$full_port$path" "$full_auth"
  pass bare "http://127.0.0.1:$bare_port/bare"
  pass bare-same "http://127.0.0.1:$bare_port/bare" "$fast_auth"
  pass nginx "$nginx_url"
done | tee "$work/passes.txt"
fast_answers=$(curl -fsS "http://127.0.0.1:$fast_port/metrics" | awk '/^gateway_http_fast_path_answers_total/ {print $NF}')
echo "fast-path answers of the fast gateway: $fast_answers"
python3 - "$work/passes.txt" <<'PY'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    label, rate, _ = line.split()
    rates.setdefault(label, []).append(float(rate))
median = {label: statistics.median(values) for label, values in rates.items()}
for label, value in median.items():
    print(f"median {label:<10} {value:10.0f} req/s")
for a, b in [("fast", "full"), ("fast", "bare"), ("fast", "bare-same"), ("full", "bare"), ("fast", "nginx")]:
    print(f"{a}/{b:<10} {median[a] / median[b]:.2f}x")
PY
