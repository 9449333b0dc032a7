#!/usr/bin/env bash
# `make test`: installs what the tests need, starts a throwaway redis-server on a free
# port, fuzzes the live gateway against OpenAPI/gateway.yaml with schemathesis, runs
# the whole Swift suite, and stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --with-test-tools

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

redis_port=$(scripts/free-port.sh)
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
export REDIS_URL="redis://127.0.0.1:${redis_port}/0"
echo "redis-server on ${REDIS_URL}"

swift build --build-tests
scripts/contract-fuzz.sh "$work"
swift test --skip-build
