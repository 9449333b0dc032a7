#!/usr/bin/env bash
# A/B of two gateway builds in one session: the cached manifest (bearer token, Redis
# cache, 64 connections, 10 s) through each, alternating three rounds, then the ratio of the
# means. Build the old binary from a worktree (`git worktree add /tmp/old REV`, then
# `swift build -c release --product gateway` there). BENCH_AB_NEW_ADMIN=1 starts the new one
# with its admin listener on (issue 48: the read path must not notice it); give the same
# binary twice for that.
#   usage: scripts/bench-ab.sh OLD_GATEWAY_BINARY NEW_GATEWAY_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
start_redis
export GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) GATEWAY_LOG_LEVEL=error
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "not up: $1" >&2; return 1; }
declare -A url auth
launch() { # name binary redis-db
  mkdir -p "$work/$1"
  local port admin=""; port=$(scripts/free-port.sh)
  [[ $1 == new && -n "${BENCH_AB_NEW_ADMIN:-}" ]] && admin=$(scripts/free-port.sh)
  env ${admin:+GATEWAY_ADMIN_PORT=$admin} GATEWAY_DATABASE_PATH="$work/$1/gateway.sqlite" GATEWAY_HTTP_PORT=$port \
    GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/$3" "$2" serve >"$work/$1.log" 2>&1 &
  pids+=($!)
  wait_for "http://127.0.0.1:$port/healthz"
  if [[ -n $admin ]]; then  # on, and answering: an unauthenticated call is refused with 401
    echo "$1: admin listener on :$admin, /admin/v1/me answers $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$admin/admin/v1/me")"
  fi
  url[$1]="http://127.0.0.1:$port/t/demo/v1/miniapps/hello/versions/v1/manifest"
  auth[$1]="Authorization: Bearer $(python3 scripts/demo-token.py "http://127.0.0.1:$port" "$work/$1/demo-user.txt")"
  curl -fsS -H "${auth[$1]}" "${url[$1]}" >/dev/null
}
launch old "$1" 0
launch new "$2" 1
declare -A total
for round in 1 2 3; do
  for name in old new; do
    rps=$(wrk -t2 -c64 -d10s -H "${auth[$name]}" "${url[$name]}" | awk '/Requests\/sec/ {print $2}')
    echo "round $round: $name $rps req/s"
    total[$name]=$(python3 -c "print(${total[$name]:-0} + $rps)")
  done
done
python3 -c "print(f'new/old: {${total[new]} / ${total[old]}:.2f} (means {${total[old]}/3:.0f} → {${total[new]}/3:.0f} req/s)')"
