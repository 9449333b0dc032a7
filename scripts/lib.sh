# Shared helpers of the scripts that start throwaway servers. Source it, don't run it.
# After sourcing: $work is a temp folder, every pid added to `pids` is killed on exit.
work=$(mktemp -d)
pids=()
cleanup() {
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
