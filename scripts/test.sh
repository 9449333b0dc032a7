#!/usr/bin/env bash
# `make test`: installs what the tests need, starts a throwaway redis-server and a
# throwaway PostgreSQL cluster on free ports, fuzzes the live gateway against
# OpenAPI/gateway.yaml with schemathesis, runs the README's examples against a fresh gateway, runs the whole Swift suite (the store contract
# on SQLite and on PostgreSQL), and stops everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --with-test-tools
# The pinned Python test tools (schemathesis, openapi-python-client, authlib, the OpenID
# Provider the federation tests sign in at) come from the virtual environment.
export PATH="$PWD/.build/test-venv/bin:$PATH"

source scripts/lib.sh
start_redis
export REDIS_URL="redis://127.0.0.1:${redis_port}/0"
echo "redis-server on ${REDIS_URL}"
start_postgres
export GATEWAY_TEST_POSTGRES_URL="$postgres_url"
echo "PostgreSQL on ${postgres_url/:gateway-test-password@/@}"

# Project code stays warning-free: a warning in Sources/ or Tests/ fails the run (a clean
# build, as in CI, compiles every file; an incremental one shows only what it recompiled).
swift build --build-tests 2>&1 | tee "$work/build.log"
if grep -E "^$PWD/(Sources|Tests|Plugins)/.*: warning:" "$work/build.log" | sort -u | grep .; then
  echo "the warnings above are in project code: fix them"; exit 1
fi
scripts/line-length.sh
# Deploy/kubernetes: every manifest, and what each Kustomize overlay renders to, against the
# Kubernetes schemas (offline, strict).
python3 -m kubernetes_validate --strict --quiet $(ls Deploy/kubernetes/*.yaml | grep -v kustomization.yaml)
for overlay in Deploy/kubernetes/overlays/*/; do
  python3 scripts/kustomize-render.py "$overlay" >"$work/overlay.yaml"
  python3 -m kubernetes_validate --strict --quiet "$work/overlay.yaml"
done
scripts/contract-fuzz.sh "$work"
# The README's marked shell blocks, pasted as written into a fresh gateway.
scripts/readme-examples.sh "$work"
# The Swift suite (scripts/lib.sh: four tests at a time, then the latency-bound suites alone).
status=0
run_swift_suite || status=1
# The chaos harness, short (docs/chaos.md): the shipped deployment (three gateways,
# PostgreSQL, Redis + Sentinel, nginx) and a client on network-namespace hosts, each component
# killed with SIGKILL in turn under the workload, the invariants checked. Network namespaces need root (CI is root); elsewhere it is skipped.
if [[ $(id -u) -eq 0 ]]; then
  python3 scripts/chaos/chaos.py --scenario kill --seconds 45 --seed 1 || status=1
else
  echo "chaos: skipped (network namespaces need root; run make chaos as root)"
fi
exit "$status"
