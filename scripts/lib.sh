# Shared helpers of the scripts that start throwaway servers. Source it, don't run it.
# After sourcing: $work is a temp folder, every pid added to `pids` is killed on exit.
work=$(mktemp -d)
pids=()
stops=()
cleanup() {
  for stop in "${stops[@]}"; do eval "$stop" >/dev/null 2>&1 || true; done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start_redis: a redis-server on a free loopback port, no persistence; sets redis_port.
start_redis() {
  redis_port=$(scripts/free-port.sh)
  redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
}

# start_postgres: a throwaway PostgreSQL cluster on a free loopback port (password auth over
# TCP, fsync off), with database `gateway`; sets postgres_url. As root (CI) the server runs
# as the `postgres` user, which PostgreSQL requires. Needs Debian's `postgresql` package.
start_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [[ -x "$bin/initdb" ]] || { echo "start_postgres: no PostgreSQL server (apt-get install postgresql)" >&2; return 1; }
  local port dir as=()
  port=$(scripts/free-port.sh)
  dir=$(mktemp -d /tmp/gateway-pg.XXXXXX)
  chmod 755 "$dir"
  mkdir -p "$dir/data" "$dir/socket"
  echo "gateway-test-password" >"$dir/password"
  if [[ $(id -u) -eq 0 ]]; then chown -R postgres "$dir"; as=(runuser -u postgres --); fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U gateway --pwfile="$dir/password" --auth-local=trust --auth-host=scram-sha-256 -E UTF8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir/socket -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  stops+=("${as[*]} $bin/pg_ctl -D $dir/data -m immediate stop; rm -rf $dir")
  "${as[@]}" "$bin/createdb" -h "$dir/socket" -p "$port" -U gateway gateway
  postgres_url="postgres://gateway:gateway-test-password@127.0.0.1:${port}/gateway?sslmode=disable"
}

# start_nginx NAME WORKERS: nginx in $work/NAME as the benches run it (no daemon, no access
# log, every path in that folder, workers able to reach it when started as root); the lines
# of its `http` block come from stdin.
start_nginx() {
  local dir="$work/$1"
  mkdir -p "$dir"
  {
    cat <<HEAD
worker_processes $2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/body; proxy_temp_path $dir/proxy; fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi; scgi_temp_path $dir/scgi;
HEAD
    cat
    echo "}"
  } >"$dir/nginx.conf"
  # nginx's workers run as nobody when started as root: they need to reach their folder.
  chmod o+x "$work"
  chmod -R a+rwx "$dir"
  nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" >"$dir/stderr.log" 2>&1 &
  pids+=($!)
}

# start_nginx_cache UPSTREAM_PORT: nginx (two workers) with proxy_cache in front of
# 127.0.0.1:UPSTREAM_PORT, the benches' peer for cached reads; sets nginx_port.
start_nginx_cache() {
  nginx_port=$(scripts/free-port.sh)
  start_nginx nginx 2 <<NGINX
  proxy_cache_path $work/nginx/cache keys_zone=platform:10m;
  upstream platform { server 127.0.0.1:$1; keepalive 16; }
  server {
    listen 127.0.0.1:$nginx_port;
    location / {
      proxy_pass http://platform;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache platform;
      proxy_cache_valid 200 300s;
      proxy_cache_lock on;
    }
  }
NGINX
}

# form8k_script FILE: a wrk script POSTing the largest form the token endpoint accepts (8 KiB),
# a refresh_token grant whose token is junk: read, parsed and refused (invalid_grant) each time.
form8k_script() {
  python3 - "$1" <<'LUA'
import sys
body = "grant_type=refresh_token&client_id=bench-app&refresh_token=" + "x" * (8192 - 60)
open(sys.argv[1], "w").write('wrk.method = "POST"\nwrk.body = "%s"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n' % body)
LUA
}

# refresh_chains URL TOKENS_FILE CLIENT_ID: refresh_token rotations under wrk (2 threads, 16
# connections, $duration), scripts/refresh-chain.lua continuing the chains in TOKENS_FILE.
# Prints wrk's output; fails, naming it on stderr, when a chain broke (an error answer).
refresh_chains() {
  local out
  out=$(wrk -t2 -c16 -d"${duration:-10s}" --latency -s scripts/refresh-chain.lua "$1" -- "$2" 2 "$3")
  grep -q "refresh chains: .*, 0 errors" <<<"$out" || { echo "wrk refresh chains broke: $out" >&2; return 1; }
  echo "$out"
}

# run_swift_suite [LOG]: the Swift suite (Swift Testing only), run by its test binary so the
# parallelism can be bounded: four tests at a time, then the suites that bound whole gateways'
# latency under load (floods, connection deadlines, drains, /home part budgets, failover, the
# clusters) one test at a time, so a neighbour's burst never stalls them. An unbounded parallel
# run starts hundreds of gateways at once on 2 cores and stalls tasks for seconds. With LOG,
# the output is also appended there. Fails when a test failed.
latency_bound='ConnectionFloodTests|ConnectionLimitTests|GracefulShutdownTests|HomeTests|MiniAppResilienceTests|SentinelFailoverTests|ClusterTests|BodyLimitTests|TrustedProxyTests|DatabaseBreakerTests|ConsoleBrowserTests'
run_swift_suite() {
  local log=${1:-/dev/null} tests status=0
  tests="$(swift build --show-bin-path)/SuperAppGatewayPackageTests.xctest"
  "$tests" --testing-library swift-testing --experimental-maximum-parallelization-width 4 --skip "$latency_bound" 2>&1 \
    | tee -a "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  "$tests" --testing-library swift-testing --experimental-maximum-parallelization-width 1 --filter "$latency_bound" 2>&1 \
    | tee -a "$log"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  return $status
}

# seed_audit_records URL COUNT PREFIX: COUNT audit records in 100 chains PREFIX0..PREFIX99,
# written straight into PostgreSQL at URL (the benches' large trails): seven operators, one
# a second from 2027-01-15, each a tenant update with a one-field change. The hashes are
# filler: verify would call these chains broken, which no bench asks.
seed_audit_records() {
  local url=$1 count=$2 prefix=$3
  psql -q "${url%%\?*}" <<SQL
INSERT INTO audit_records (chain, sequence, time_ms, subject, verb, resource_type, resource_id, body, hash)
SELECT '$prefix' || (g % 100), g / 100 + 1, 1800000000000 + g * 1000, 'op-' || (g % 7), 'update', 'tenant', '$prefix' || (g % 100),
  json_build_object('chain', '$prefix' || (g % 100), 'sequence', g / 100 + 1, 'timeMs', 1800000000000 + g * 1000,
    'actor', json_build_object('subject', 'op-' || (g % 7), 'name', 'op-' || (g % 7), 'roles', json_build_array('tenant-admin@$prefix' || (g % 100))),
    'verb', 'update', 'resource', json_build_object('type', 'tenant', 'tenant', '$prefix' || (g % 100), 'id', '$prefix' || (g % 100)),
    'outcome', json_build_object('status', 200),
    'change', json_build_object('before', json_build_object('displayName', 'n' || g), 'after', json_build_object('displayName', 'n' || (g + 1))),
    'previousHash', md5((g - 100)::text) || md5(g::text))::text,
  md5(g::text) || md5((g + 1)::text)
FROM generate_series(0, $count - 1) g;
ANALYZE audit_records;
SQL
}
