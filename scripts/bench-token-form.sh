#!/usr/bin/env bash
# The token endpoint, two builds side by side in one run (issue 32): for each round and each
# build folder, a fresh gateway (SQLite, Redis) gets (a) code exchanges and refresh_token
# rotations over HTTP (token-http-bench, 16 keep-alive connections) and (b) the largest form
# it accepts (8 KiB, refused invalid_grant) under wrk, and (c) refresh_token rotations under
# wrk (scripts/refresh-chain.lua: each answer's token is a later request's), whose client
# costs far less than token-http-bench's; rounds alternate A B A B, so the machine's noise
# falls on both; the last lines print B/A ratios of the medians.
# Usage: scripts/bench-token-form.sh DIR_A DIR_B [rounds=3]
#   each DIR holds release builds of gateway and gatewayctl; token-http-bench (the client)
#   is B's for both sides (BENCH_TOOL names another).
# BENCH_ID_TOKEN_ALG: the client's ID-token algorithm, RS256 (the default, as OpenID Connect
#   has it) or ES256.
# BENCH_DB=postgres: each gateway on its own new database of one throwaway PostgreSQL cluster
#   (default: SQLite).
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2 rounds=${3:-3} duration=${BENCH_DURATION:-10s}
tool=${BENCH_TOOL:-$b/token-http-bench} id_alg=${BENCH_ID_TOKEN_ALG:-RS256} engine=${BENCH_DB:-sqlite}
source scripts/lib.sh
start_redis
[[ $engine == postgres ]] && start_postgres
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
form8k_script "$work/form8k.lua"

one_round() {  # $1 build folder, $2 label; prints "label exchanges refreshes form8k p99 wrk-refreshes p99"
  local bin=$1 db="$work/$2-$RANDOM.sqlite" port; port=$(scripts/free-port.sh)
  export GATEWAY_DATABASE_PATH=$db GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) GATEWAY_LOG_LEVEL=error
  if [[ $engine == postgres ]]; then
    local name="bench_${2,,}_$RANDOM"
    psql -q "$postgres_url" -c "CREATE DATABASE $name"
    db=${postgres_url/\/gateway\?/\/$name?}
    export GATEWAY_DATABASE_URL=$db
  fi
  export GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
  GATEWAY_HTTP_PORT=$port "$bin/gateway" serve >"$work/$2.log" 2>&1 &
  local pid=$!
  wait_for "http://127.0.0.1:$port/healthz"
  "$bin/gatewayctl" tenant create bench --display-name Bench >/dev/null
  "$bin/gatewayctl" client add --tenant bench --client-id bench-app --first-party --redirect-uri http://127.0.0.1/callback \
    --id-token-alg "$id_alg" >/dev/null
  echo "bench-password-$RANDOM$RANDOM" | "$bin/gatewayctl" user add --tenant bench --username bench --password-stdin >/dev/null
  local base="http://127.0.0.1:$port" tokens form
  wait_for "$base/t/bench/.well-known/openid-configuration"
  tokens=$(REDIS_URL="$GATEWAY_REDIS_URL" BENCH_CHAINS_FILE="$work/chains-$2.txt" "$tool" "$base" "$db" bench \
    bench-app http://127.0.0.1/callback bench 4000 16)
  form=$(wrk -t2 -c16 -d"$duration" --latency -s "$work/form8k.lua" "$base/t/bench/oauth2/token")
  local broke=0
  chained=$(refresh_chains "$base/t/bench/oauth2/token" "$work/chains-$2.txt" bench-app) || broke=1
  kill "$pid"; wait "$pid" 2>/dev/null || true
  [[ $broke == 0 ]] || return 1
  echo "$2 $(echo "$tokens" | sed -n 's/.*exchanges: \([0-9]*\) \/s.*/\1/p') \
$(echo "$tokens" | sed -n 's/.*rotations: \([0-9]*\) \/s.*/\1/p') \
$(echo "$form" | awk '/Requests\/sec/ {print $2}') $(echo "$form" | awk '$1 == "99%" {print $2}') \
$(echo "$chained" | awk '/Requests\/sec/ {print $2}') $(echo "$chained" | awk '$1 == "99%" {print $2}')"
  echo "$tokens" >>"$work/tokens.txt"
}

echo "ID tokens $id_alg; $engine; $duration of wrk per pass"
echo "round label exchanges/s refreshes/s form8k-req/s form8k-p99 wrk-refresh/s wrk-refresh-p99"
for round in $(seq 1 "$rounds"); do
  for side in A B; do
    dir=$a; [[ $side == B ]] && dir=$b
    echo "$round $(one_round "$dir" "$side")" | tee -a "$work/rows.txt"
  done
done
echo "--- token-http-bench output, last round ---"; tail -4 "$work/tokens.txt"
python3 - "$work/rows.txt" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
def med(side, col):
    values = [float(r[col]) for r in rows if r[1] == side and r[col].replace(".", "", 1).isdigit()]
    return statistics.median(values) if values else float("nan")
for col, name in ((2, "exchanges/s"), (3, "refreshes/s"), (4, "8 KiB form refused req/s"),
                  (6, "refreshes/s under wrk")):
    print(f"median {name:26} A {med('A', col):9.0f}   B {med('B', col):9.0f}   B/A {med('B', col) / med('A', col):5.2f}x")
for side in "AB":
    print(f"{side}: 8 KiB refusals per refresh {med(side, 4) / med(side, 3):5.1f}x"
          f" (per refresh under wrk {med(side, 4) / med(side, 6):5.1f}x)")
PY
