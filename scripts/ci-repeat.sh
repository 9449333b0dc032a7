#!/usr/bin/env bash
# scripts/ci-repeat.sh N [--all]: builds once, then runs the Swift suite N times as `make test`
# runs it (scripts/lib.sh run_swift_suite: four at a time, then the latency-bound suites alone)
# against one throwaway redis-server and PostgreSQL cluster, and prints each test that failed
# with the runs it failed in. With --all every round also runs the contract fuzz, the README
# examples and the short chaos run (as root), as `make test` does. Exits 1 when anything failed.
# A flaky test shows up here as "failed in 1 of 5"; docs/testing.md records runs.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:?usage: scripts/ci-repeat.sh N [--all]}
all=${2:-}
scripts/install-deps.sh --with-test-tools
export PATH="$PWD/.build/test-venv/bin:$PATH"
source scripts/lib.sh
start_redis
export REDIS_URL="redis://127.0.0.1:${redis_port}/0"
start_postgres
export GATEWAY_TEST_POSTGRES_URL="$postgres_url"
swift build --build-tests >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }
failed=0
for round in $(seq 1 "$rounds"); do
  started=$(date +%s)
  log="$work/round-$round.log"
  round_status=0
  run_swift_suite "$log" >/dev/null || round_status=1
  if [[ "$all" == "--all" ]]; then
    scripts/contract-fuzz.sh "$work" >>"$log" 2>&1 || { echo "✘ Test \"contract fuzz\" failed" >>"$log"; round_status=1; }
    scripts/readme-examples.sh "$work" >>"$log" 2>&1 || { echo "✘ Test \"README examples\" failed" >>"$log"; round_status=1; }
    if [[ $(id -u) -eq 0 ]]; then
      python3 scripts/chaos/chaos.py --scenario kill --seconds 45 --seed 1 >>"$log" 2>&1 \
        || { echo "✘ Test \"chaos kill\" failed" >>"$log"; round_status=1; }
    fi
  fi
  # The test binary colours its lines even into a file: the escapes go before they are read.
  sed -i 's/\x1b\[[0-9;]*m//g' "$log"
  passed=$(grep -c '✔ Test ' "$log" || true)
  # `✘ Test "name" failed …` or, for a parameterised test, `✘ Test name(arg:) with 2 test cases failed …`.
  failures=$(grep -E '✘ Test ' "$log" | grep -E ' (failed|recorded) ' \
    | sed -E 's/^.*✘ Test ("([^"]*)"|([^ ]*)) .*$/\2\3/' | sort -u || true)
  count=$(printf '%s' "$failures" | grep -c . || true)
  echo "round $round: $passed tests passed, $count failed, $(( $(date +%s) - started )) s"
  if [[ -n "$failures" ]]; then
    printf '%s\n' "$failures" | sed 's/^/  failed: /'
    printf '%s\n' "$failures" >>"$work/failures"
  fi
  [[ $round_status -eq 0 ]] || failed=1
done
echo "failures per test over $rounds rounds:"
if [[ -s "$work/failures" ]]; then
  sort "$work/failures" | uniq -c | sort -rn | awk -v n="$rounds" '{c=$1; $1=""; printf "  %s failed in %d of %d\n", substr($0,2), c, n}'
else
  echo "  none"
fi
exit $failed
