#!/usr/bin/env bash
# `make bench-cluster`: builds the gateway (release unless BENCH_MODE=debug), starts a
# throwaway PostgreSQL and Redis, then scripts/bench-cluster.py prints, in one run: 1 vs 3
# replicas behind nginx (cached manifest req/s + p99, token exchanges/refreshes over HTTP),
# the Redis Sentinel failover gap, and the errors of a rolling restart under load.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${BENCH_MODE:-release}
scratch=${BENCH_SCRATCH:-.build}
for product in gateway gatewayctl token-http-bench; do
  swift build -c "$mode" --scratch-path "$scratch" --product "$product"
done
command -v nginx >/dev/null && command -v wrk >/dev/null && command -v redis-sentinel >/dev/null \
  || scripts/install-deps.sh --with-test-tools

source scripts/lib.sh
start_postgres
start_redis
export GATEWAY_DATABASE_URL="$postgres_url"
export GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export GATEWAY_DATABASE_PATH="$work/gateway.sqlite"   # where the demo user's password file goes
export GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
export GATEWAY_LOG_LEVEL=error
python3 scripts/bench-cluster.py "$scratch/$mode" "$work"
