#!/usr/bin/env bash
# One message to 100,000 devices (BENCH_PUSH_DEVICES) through a gateway's delivery worker and
# a fake FCM on loopback (nginx answering the token endpoint and messages:send as Google
# documents their successes, so the fake costs next to nothing): deliveries/s, time to drain,
# gateway RSS before / at its highest during / after the drain, deliveries left pending.
# Usage: scripts/bench-push.sh [BIN_DIR] [POSTGRES_URL]   (default .build/release, SQLite;
# make bench calls it once for each engine and prints the ratio)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
database_url=${2:-}
devices=${BENCH_PUSH_DEVICES:-100000}
source scripts/lib.sh
command -v nginx >/dev/null || { echo "push bench: nginx is not installed, skipped"; exit 0; }
fake_port=$(scripts/free-port.sh)
start_nginx fcm 1 <<CONF
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$fake_port;
    default_type application/json;
    location = /token { return 200 '{"access_token":"ya29.bench","expires_in":3599,"token_type":"Bearer"}'; }
    location ~ ^/v1/projects/[^/]+/messages:send$ { return 200 '{"name":"projects/bench/messages/1"}'; }
  }
CONF
export GATEWAY_DATABASE_PATH="$work/push.sqlite"
engine=sqlite; [[ -n "$database_url" ]] && engine=postgres
export GATEWAY_MASTER_KEY=${GATEWAY_MASTER_KEY:-$(head -c 32 /dev/urandom | base64)}
export GATEWAY_LOG_LEVEL=error GATEWAY_PUSH_FCM_URL="http://127.0.0.1:$fake_port" GATEWAY_PUSH_CONCURRENCY=${BENCH_PUSH_CONCURRENCY:-128}
unset GATEWAY_REDIS_URL GATEWAY_DATABASE_URL
[[ -n "$database_url" ]] && export GATEWAY_DATABASE_URL="$database_url"
gw_port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$gw_port "$bin/gateway" serve >"$work/push-gateway.log" 2>&1 &
gw=$!
pids+=($gw)
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$gw_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
rss() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$gw/status"; }
echo "push ($engine): gateway RSS before: $(rss) MiB"
peak=0
( while kill -0 "$gw" 2>/dev/null; do r=$(rss); echo "$r"; sleep 0.5; done ) >"$work/push-rss.txt" &
sampler=$!
"$bin/push-bench" "${database_url:-$GATEWAY_DATABASE_PATH}" "http://127.0.0.1:$fake_port" "$devices" \
  | sed "s/^/push ($engine): /"
kill "$sampler" 2>/dev/null || true
peak=$(sort -n "$work/push-rss.txt" | tail -1)
echo "push ($engine): gateway RSS highest while delivering: ${peak} MiB, after: $(rss) MiB"
