#!/usr/bin/env bash
# `make bench`: builds the gateway and a bare Hummingbird route (release unless
# BENCH_MODE=debug), then in ONE run prints:
#   (a) wrk against a cached manifest GET through the full stack (tenant `demo`, served
#       from the Deploy/demo catalog, then from the answer cache) and
#   (b) wrk against the bare route returning the same bytes (64 connections, 2 threads);
#   (d)-(f) one platform answer through this gateway (cache hits on the event loop), through
#       a second gateway with that fast path off, and through nginx proxy_cache;
#   /home p50 with the platform delayed 20 ms (warm, under wrk; and cold: every upstream
#   part a cache miss, one request at a time); 1,000 concurrent cold requests for one
#   manifest → upstream calls; gateway RSS after load; the token endpoint over HTTP (code
#   exchanges/s and refreshes/s, 16 keep-alive connections, real form bodies) next to the
#   same operations in-process, refreshes under wrk (scripts/refresh-chain.lua), and an 8 KiB
#   form (the largest allowed) under wrk beside the bare route reading it and answering 400; then
#   SQLite vs PostgreSQL side by side: a second gateway on a throwaway PostgreSQL cluster,
#   cached manifest req/s and token exchanges/refreshes over HTTP on both, and store-bench
#   (reload of 10,000 tenants, rotations/s in-process) on both. BENCH_DB=sqlite skips it.
#   Then one push message to 100,000 devices (scripts/bench-push.sh) on SQLite and on
#   PostgreSQL back to back, with their ratio; and the flood of issue 27 against the release
#   gateway (scripts/bench-flood.sh): how fast a newcomer is answered under it. Last, the cached
#   manifest through a gateway with its admin listener on beside one without (scripts/bench-ab.sh),
#   after the operator console's pages at 1,000 tenants and 1,000,000 audit records
#   (scripts/bench-console.sh), CIBA's flows per second (scripts/bench-ciba.sh), and the journeys'
#   steps, sign-ups per minute and known/unknown timing (scripts/bench-journeys.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${BENCH_MODE:-release}
duration=${BENCH_DURATION:-10s}
scratch=${BENCH_SCRATCH:-.build}
for product in gateway gatewayctl bare-route token-http-bench auth-bench store-bench push-bench; do
  swift build -c "$mode" --scratch-path "$scratch" --product "$product"
done
bin=$scratch/$mode

source scripts/lib.sh
wait_for() { for _ in $(seq 1 100); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "not up: $1" >&2; return 1; }

export GATEWAY_DATABASE_PATH="$work/gateway.sqlite"
export GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
export GATEWAY_LOG_LEVEL=error
if command -v redis-server >/dev/null; then
  start_redis
  export GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
fi
upstream_port=$(scripts/free-port.sh)
python3 scripts/bench-upstream.py "$upstream_port" 20 &
pids+=($!)
gw_port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$gw_port "$bin/gateway" serve >"$work/gateway.log" 2>&1 &
gw_pid=$!
pids+=($gw_pid)
wait_for "http://127.0.0.1:$gw_port/healthz"
"$bin/gatewayctl" tenant create bench --display-name Bench --platform-url "http://127.0.0.1:$upstream_port" \
  --project-id P1 --subscription-key bench-key --catalog-ttl 1 --manifest-ttl 300 >/dev/null
base="http://127.0.0.1:$gw_port"
wait_for "$base/t/bench/v1/host-config"
# Every mini-app operation needs a bearer token: sign real users in, as a client would.
"$bin/gatewayctl" client add --tenant bench --client-id bench-app --first-party --redirect-uri http://127.0.0.1/callback >/dev/null
# The same with ES256 ID tokens (issue 32's table names them; RS256 is OpenID Connect's default).
"$bin/gatewayctl" client add --tenant bench --client-id bench-es --first-party --redirect-uri http://127.0.0.1/callback \
  --id-token-alg ES256 >/dev/null
printf 'username: bench\npassword: bench-password-%s\n' "$RANDOM$RANDOM" >"$work/bench-user.txt"
awk '/^password: / {print $2}' "$work/bench-user.txt" | "$bin/gatewayctl" user add --tenant bench --username bench --password-stdin >/dev/null
demo_auth="Authorization: Bearer $(python3 scripts/demo-token.py "$base" "$work/demo-user.txt")"
bench_auth="Authorization: Bearer $(python3 scripts/demo-token.py "$base" "$work/bench-user.txt" bench bench-app)"

manifest="$base/t/demo/v1/miniapps/hello/versions/v1/manifest"
curl -fsS -H "$demo_auth" "$manifest" >"$work/body.json"
bare_port=$(scripts/free-port.sh)
"$bin/bare-route" "$bare_port" "$work/body.json" >/dev/null 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$bare_port/bare"

wrk_line() { # label wrk-output: one line of req/s, p50, p99
  printf '%-34s %10s req/s   p50 %8s   p99 %8s\n' "$1" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$2")" "$(awk '$1=="50%" {print $2}' <<<"$2")" "$(awk '$1=="99%" {print $2}' <<<"$2")"
}
figures() { # label url connections [header]
  wrk_line "$1" "$(wrk -t2 -c"$3" -d"$duration" --latency ${4:+-H "$4"} "$2")"
}
cache_kind=memory; [[ -n "${GATEWAY_REDIS_URL:-}" ]] && cache_kind=redis
echo "mode: $mode, cache: $cache_kind, $(nproc) cores, wrk $duration, bearer tokens on every mini-app request"
if [[ -n "${BENCH_PROFILE:-}" ]]; then  # BENCH_PROFILE=file: perf samples of the gateway during (a)
  perf record -e cpu-clock -F 999 -g -p "$gw_pid" -o "$BENCH_PROFILE" -- sleep 8 >/dev/null 2>&1 &
  perf_pid=$!
fi
cached=$(figures "(a) cached manifest, full stack" "$manifest" 64 "$demo_auth")
echo "$cached"
[[ -n "${perf_pid:-}" ]] && wait "$perf_pid"
bare=$(figures "(b) bare Hummingbird route" "http://127.0.0.1:$bare_port/bare" 64)
echo "$bare"
ratio() { # label figures-line figures-line: the first's req/s over the second's
  python3 -c 'import sys; x, y = (float(l.split()[-6]) for l in sys.argv[2:]); print(f"{sys.argv[1]} = {x / y:.2f}")' "$@"
}
# The bare route with the same request (its Authorization header read and ignored): the
# same bytes to receive and parse as (a).
bare_same=$(figures "(b') bare route, same request" "http://127.0.0.1:$bare_port/bare" 64 "$demo_auth")
echo "$bare_same"
ratio "(a)/(b) cached manifest vs bare route" "$cached" "$bare"
ratio "(a)/(b') cached manifest vs bare route, same request" "$cached" "$bare_same"
# Issue 32: the same platform answer (bench tenant, app1's manifest, from bench-upstream.py)
# (d) through this gateway, whose cache hits the event loop answers; (e) through a second
# gateway on the same database and Redis with that fast path off (the full request pipeline);
# (f) through nginx's proxy_cache in front of the same platform (no token check at all).
full_port=$(scripts/free-port.sh)
GATEWAY_EDGE_FAST_PATH=off GATEWAY_HTTP_PORT=$full_port "$bin/gateway" serve >"$work/gateway-full.log" 2>&1 &
pids+=($!)
full_base="http://127.0.0.1:$full_port"
wait_for "$full_base/healthz"
full_auth="Authorization: Bearer $(python3 scripts/demo-token.py "$full_base" "$work/bench-user.txt" bench bench-app)"
app_manifest=/t/bench/v1/miniapps/app1/versions/v1/manifest
start_nginx_cache "$upstream_port"
nginx_manifest="http://127.0.0.1:$nginx_port/host/P1/miniapp/app1/version/v1/metadata"
wait_for "$nginx_manifest"
curl -fsS -H "$bench_auth" "$base$app_manifest" >/dev/null
curl -fsS -H "$full_auth" "$full_base$app_manifest" >/dev/null
fast=$(figures "(d) platform manifest, fast path" "$base$app_manifest" 64 "$bench_auth")
echo "$fast"
full=$(figures "(e) same, full pipeline" "$full_base$app_manifest" 64 "$full_auth")
echo "$full"
proxied=$(figures "(f) same answer, nginx proxy_cache" "$nginx_manifest" 64)
echo "$proxied"
ratio "(d)/(e) fast path vs full pipeline" "$fast" "$full"
ratio "(d)/(f) fast path vs nginx proxy_cache" "$fast" "$proxied"
ratio "(d)/(b) fast path vs bare route" "$fast" "$bare"
# (c) the same manifest with a 10 % release policy on hello (issue 29: >= 95 % of (a)), then
# (a) again, so the ratio compares neighbours in time; the policy is dropped afterwards.
"$bin/gatewayctl" release set --tenant demo hello --candidate v2 --percent 10 >/dev/null 2>&1
sleep 1
with_policy=$(figures "(c) cached manifest, 10 % policy" "$manifest" 64 "$demo_auth")
echo "$with_policy"
again=$(figures "(a') cached manifest, no policy" "$manifest" 64 "$demo_auth")
echo "$again"
"$bin/gatewayctl" release set --tenant demo hello --no-candidate >/dev/null 2>&1
python3 -c 'import sys; c, a = (float(x.split()[-6]) for x in sys.argv[1:]); print(f"(c)/(a\x27) = {c / a:.2f}")' \
  "$with_policy" "$again"
figures "/home (platform +20 ms, 8 conns)" "$base/t/bench/v1/home" 8 "$bench_auth"
count_calls() { curl -fsS "http://127.0.0.1:$upstream_port/count" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("/host/P1/miniapp/app1/version/v1/metadata", 0))'; }
calls_before=$(count_calls)
burst=$(python3 scripts/bench-burst.py "$base/t/bench/v1/miniapps/app1/versions/v1/manifest" 1000 "${bench_auth#Authorization: }")
calls=$(( $(count_calls) - calls_before ))
echo "1000 concurrent cold requests: statuses $burst, upstream calls $calls"
echo "/home one at a time, platform +20 ms, 3 recent apps, 20 rounds each: $(
  python3 scripts/bench-home-cold.py "$base" "${bench_auth#Authorization: Bearer }" "$bin/gatewayctl" bench 20)"
rss=$(( $(ps -o rss= -p "$gw_pid") / 1024 ))
echo "gateway RSS after load: $rss MiB"

echo "--- token endpoint, same run: HTTP (form bodies, 16 keep-alive connections) vs in-process ---"
# token_http REDIS_URL BASE DATABASE CLIENT: code exchanges and refresh_token rotations over
# HTTP as user `bench` of tenant `bench` (4,000 each, 16 keep-alive connections).
token_http() { REDIS_URL="$1" "$bin/token-http-bench" "$2" "$3" bench "$4" http://127.0.0.1/callback bench 4000 16; }
if [[ -n "${GATEWAY_REDIS_URL:-}" ]]; then
  http_rs=$(token_http "$GATEWAY_REDIS_URL" "$base" "$GATEWAY_DATABASE_PATH" bench-app)
  echo "RS256 ID tokens: ${http_rs//$'\n'/; }"
  http_es=$(BENCH_CHAINS_FILE="$work/chains-es.txt" token_http "$GATEWAY_REDIS_URL" "$base" "$GATEWAY_DATABASE_PATH" bench-es)
  echo "ES256 ID tokens: ${http_es//$'\n'/; }"
  # The same rotations under wrk (scripts/refresh-chain.lua continues token-http-bench's 16
  # chains): a client that costs a string match per request, so the gateway gets the cores
  # that token-http-bench's AsyncHTTPClient shares with it.
  out=$(refresh_chains "$base/t/bench/oauth2/token" "$work/chains-es.txt" bench-es)
  wrk_refresh=$(wrk_line "ES256 refreshes under wrk" "$out")
  echo "$wrk_refresh"
else
  echo "HTTP token figures need Redis (codes are minted into the gateway's shared cache)"
fi
in_process=$(env ${GATEWAY_REDIS_URL:+REDIS_URL="$GATEWAY_REDIS_URL"} "$bin/auth-bench" 4000 16 | grep -v "token verification")
echo "$in_process"
# The largest form the token endpoint accepts, parsed and refused (invalid_grant) per request.
form8k_script "$work/form8k.lua"
form8k=$(wrk_line "8 KiB form to /oauth2/token (400)" \
  "$(wrk -t2 -c16 -d"$duration" --latency -s "$work/form8k.lua" "$base/t/bench/oauth2/token")")
echo "$form8k"
# The floor under it: the bare Hummingbird route reading the same body and answering 400.
bare_refusal=$(wrk_line "same form, bare route (400)" \
  "$(wrk -t2 -c16 -d"$duration" --latency -s "$work/form8k.lua" "http://127.0.0.1:$bare_port/refuse")")
echo "$bare_refusal"

# Push: one message to 100,000 devices through a gateway's delivery worker (its own gateway and
# database); with PostgreSQL (below) both engines run back to back and their ratio is printed.
[[ "${BENCH_DB:-both}" == "sqlite" ]] && scripts/bench-push.sh "$bin"
# A newcomer's answer under a half-open connection flood (issue 27's promise: within 1 s).
scripts/bench-flood.sh "$bin"
# The operator console's pages at scale (issue 49: p95 <= 50 ms at 1,000 tenants and
# 1,000,000 audit records), before the read path's rows below, which must not move.
echo "--- operator console pages ---"
scripts/bench-console.sh "$bin"
# OpenID CIBA (issue 50): whole flows per second, and an unknown hint's time beside a known one's.
echo "--- CIBA: bc-authorize + approve + token ---"
scripts/bench-ciba.sh "$bin"
scripts/bench-journeys.sh "$bin"
# The read path with the admin listener on beside one without it (issue 48: unchanged).
echo "--- cached manifest, admin listener off (old) vs on (new), alternating ---"
BENCH_AB_NEW_ADMIN=1 scripts/bench-ab.sh "$bin/gateway" "$bin/gateway"
per_second() { sed -n "s/.*$1: \([0-9]*\) \/s.*/\1/p" <<<"$2" | head -1; }
# Issue 32's table, from the figures of this run (ratios of neighbours in the same run).
summary() { # [PostgreSQL HTTP refresh/s] [SQLite HTTP refresh/s measured beside it]
  local es_refresh es_exchange rs_refresh in_es
  es_refresh=$(per_second "rotations" "${http_es:-}") es_exchange=$(per_second "exchanges" "${http_es:-}")
  rs_refresh=$(per_second "rotations" "${http_rs:-}") in_es=$(per_second "ES256 ID tokens" "$in_process")
  echo "--- issue 32's table, this run ---"
  python3 - "${es_refresh:-0}" "${es_exchange:-0}" "${rs_refresh:-0}" "${in_es:-0}" "$(awk '{print $(NF-5)}' <<<"$form8k")" \
    "$(awk '{print $(NF-5)}' <<<"$cached")" "$(awk '{print $(NF-5)}' <<<"$bare")" "$(awk '{print $(NF-5)}' <<<"$fast")" \
    "$(awk '{print $(NF-5)}' <<<"$full")" "$(awk '{print $(NF-5)}' <<<"$proxied")" "$rss" "${1:-0}" "${2:-0}" \
    "$(awk '{print $(NF-5)}' <<<"$bare_same")" "$(awk '{print $(NF-5)}' <<<"${wrk_refresh:-0 0 0 0 0 0}")" \
    "$(awk '{print $(NF-5)}' <<<"$bare_refusal")" <<'PY'
import sys
es, ex, rs, inproc, form, cached, bare, fast, full, nginx, rss, pg, sq, bare_same, es_wrk, bare_form = (
    float(x) for x in sys.argv[1:])
q = lambda a, b: f"{a / b:.2f}x" if b else "n/a"
rows = [
    ("refresh_token over HTTP, SQLite, ES256 ID tokens", f"{es:.0f} /s", ">= 2,400 /s"),
    ("same under wrk (a client of a string match)", f"{es_wrk:.0f} /s", ">= 2,400 /s"),
    ("same on PostgreSQL (RS256 both, side by side)", q(pg, sq) if pg else "not run (BENCH_DB=sqlite)", ">= 0.80x"),
    ("authorization_code exchange over HTTP (ES256)", f"{ex:.0f} /s", ">= 2,000 /s"),
    ("HTTP / in-process refresh (ES256)", q(es, inproc), ">= 0.85x"),
    ("same under wrk / in-process", q(es_wrk, inproc), ">= 0.85x"),
    ("8 KiB form refused / ES256 refresh over HTTP", q(form, es), ">= 10x"),
    ("8 KiB form refused / refresh under wrk", q(form, es_wrk), ">= 10x"),
    ("bare route's 400 to that form / refresh under wrk", q(bare_form, es_wrk), "(the floor of 10x)"),
    ("8 KiB form refused / bare route's 400", q(form, bare_form), "(share of the floor)"),
    ("RS256 / ES256 refresh over HTTP", q(rs, es), ">= 0.90x"),
    ("cached manifest (a) / bare route (b)", q(cached, bare), ">= 1.0x"),
    ("cached manifest (a) / bare route, same request (b')", q(cached, bare_same), "(same bytes in)"),
    ("platform manifest, fast path (d) / bare route (b)", q(fast, bare), ">= 1.0x"),
    ("fast path (d) / full pipeline (e)", q(fast, full), "(the fast path's gain)"),
    ("fast path (d) / nginx proxy_cache (f)", q(fast, nginx), ">= 0.8x"),
    ("RSS after the read benches", f"{rss:.0f} MiB", "<= 100 MiB"),
]
for name, now, target in rows:
    print(f"{name:<52} {now:>28}   target {target}")
PY
}
[[ "${BENCH_DB:-both}" == "sqlite" ]] && { summary; exit 0; }
echo "--- SQLite vs PostgreSQL, same run (a second gateway on a throwaway PostgreSQL cluster) ---"
start_postgres
mkdir -p "$work/pg"
pg_port=$(scripts/free-port.sh)
pg_env=(GATEWAY_DATABASE_URL="$postgres_url" GATEWAY_DATABASE_PATH="$work/pg/gateway.sqlite")
[[ -n "${GATEWAY_REDIS_URL:-}" ]] && pg_env+=(GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/1")
env "${pg_env[@]}" GATEWAY_HTTP_PORT=$pg_port "$bin/gateway" serve >"$work/gateway-pg.log" 2>&1 &
pids+=($!)
pg_base="http://127.0.0.1:$pg_port"
wait_for "$pg_base/healthz"
env "${pg_env[@]}" "$bin/gatewayctl" tenant create bench --display-name Bench --platform-url "http://127.0.0.1:$upstream_port" \
  --project-id P1 --subscription-key bench-key --catalog-ttl 1 --manifest-ttl 300 >/dev/null
env "${pg_env[@]}" "$bin/gatewayctl" client add --tenant bench --client-id bench-app --first-party --redirect-uri http://127.0.0.1/callback >/dev/null
awk '/^password: / {print $2}' "$work/bench-user.txt" | env "${pg_env[@]}" "$bin/gatewayctl" user add --tenant bench --username bench --password-stdin >/dev/null
wait_for "$pg_base/t/bench/v1/host-config"
pg_demo_auth="Authorization: Bearer $(python3 scripts/demo-token.py "$pg_base" "$work/pg/demo-user.txt")"
curl -fsS -H "$pg_demo_auth" "$pg_base/t/demo/v1/miniapps/hello/versions/v1/manifest" >/dev/null
figures "cached manifest, SQLite gateway" "$manifest" 64 "$demo_auth"
figures "cached manifest, PostgreSQL gateway" "$pg_base/t/demo/v1/miniapps/hello/versions/v1/manifest" 64 "$pg_demo_auth"
if [[ -n "${GATEWAY_REDIS_URL:-}" ]]; then
  sqlite_side=$(token_http "$GATEWAY_REDIS_URL" "$base" "$GATEWAY_DATABASE_PATH" bench-app)
  echo "SQLite gateway: ${sqlite_side//$'\n'/; }"
  pg_side=$(token_http "redis://127.0.0.1:$redis_port/1" "$pg_base" "$postgres_url" bench-app)
  echo "PostgreSQL gateway: ${pg_side//$'\n'/; }"
fi
"$bin/store-bench" "$postgres_url" 10000 4000 16
# Push deliveries on each engine, back to back (issue 47: PostgreSQL >= 0.8x SQLite's).
push_sqlite=$(scripts/bench-push.sh "$bin")
echo "$push_sqlite"
psql "$postgres_url" -qc "CREATE DATABASE push" >/dev/null
push_pg=$(scripts/bench-push.sh "$bin" "${postgres_url/\/gateway\?//push?}")
echo "$push_pg"
python3 -c 'import re, sys; r = [float(re.search(r"([0-9.]+) deliveries/s", t).group(1)) for t in sys.argv[1:]]; print(f"push deliveries PostgreSQL / SQLite = {r[1] / r[0]:.2f} (target >= 0.80)")' \
  "$push_sqlite" "$push_pg"
summary "$(per_second rotations "${pg_side:-}")" "$(per_second rotations "${sqlite_side:-}")"
