#!/usr/bin/env bash
# Starts the built gateway on a free port (Redis from $REDIS_URL when set) and runs
# schemathesis over every operation of OpenAPI/gateway.yaml, then of OpenAPI/admin.yaml on
# its admin listener: no 5xx, no response outside the schema. First, a Python client generated from the same file by
# openapi-python-client runs an integrator's scenario against it (before the fuzzer fills
# storage and trips throttles). Usage: scripts/contract-fuzz.sh WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?workdir}
port=$(scripts/free-port.sh)
export GATEWAY_DATABASE_PATH="$work/fuzz/gateway.sqlite"
export GATEWAY_HTTP_PORT="$port"
admin_port=$(scripts/free-port.sh)
export GATEWAY_ADMIN_PORT="$admin_port"
export GATEWAY_LOG_LEVEL=warning
[[ -n "${REDIS_URL:-}" ]] && export GATEWAY_REDIS_URL="$REDIS_URL"
.build/debug/gateway serve >"$work/gateway-fuzz.log" 2>&1 &
gateway=$!
trap 'kill $gateway 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
# Protected operations are fuzzed as the development demo user (seeded with its client).
GATEWAY_FUZZ_TOKEN=$(python3 scripts/demo-token.py "http://127.0.0.1:$port" "$work/fuzz/demo-user.txt")
export GATEWAY_FUZZ_TOKEN
# The RAS-compatible API is fuzzed with a client key of the demo tenant (set like an operator would).
GATEWAY_FUZZ_RAS_KEY=fuzz-client-key-0123456789
export GATEWAY_FUZZ_RAS_KEY
.build/debug/gatewayctl tenant update demo --ras-client-key "$GATEWAY_FUZZ_RAS_KEY" >/dev/null
status=0
rm -rf "$work/pyclient"
openapi-python-client generate --path OpenAPI/gateway.yaml --output-path "$work/pyclient" --overwrite >"$work/pyclient.log" 2>&1 \
  || { cat "$work/pyclient.log"; echo "openapi-python-client could not generate a client"; exit 1; }
python3 scripts/python-client-scenario.py "$work/pyclient" "http://127.0.0.1:$port" "$work/fuzz/demo-user.txt" || status=$?
SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="scripts${PYTHONPATH:+:$PYTHONPATH}" schemathesis --config-file scripts/schemathesis.toml run OpenAPI/gateway.yaml \
  --url "http://127.0.0.1:$port" \
  --checks all \
  --max-examples "${FUZZ_MAX_EXAMPLES:-60}" \
  --seed 1 \
  --no-color || status=$?
# The admin API (OpenAPI/admin.yaml) as a platform-admin service account.
GATEWAY_FUZZ_ADMIN_TOKEN=$(python3 scripts/admin-token.py "http://127.0.0.1:$admin_port" \
  "$(.build/debug/gatewayctl operator create fuzz-admin --service-account --platform-admin --json)")
export GATEWAY_FUZZ_ADMIN_TOKEN
schemathesis --config-file scripts/schemathesis-admin.toml run OpenAPI/admin.yaml \
  --url "http://127.0.0.1:$admin_port" \
  --checks all \
  --max-examples "${FUZZ_MAX_EXAMPLES:-60}" \
  --seed 1 \
  --no-color || status=$?
if [[ $status -ne 0 ]]; then
  echo "--- gateway log ---"; tail -n 50 "$work/gateway-fuzz.log"
fi
exit $status
