#!/usr/bin/env bash
# Runs the README's shell blocks marked `<!-- readme-test -->`, in order, as a newcomer would
# paste them, against a fresh development gateway (empty database, free port): every command
# must succeed and every curl must answer 2xx. Usage: scripts/readme-examples.sh WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${1:?workdir}/readme
rm -rf "$work"; mkdir -p "$work/.gateway"
port=$(scripts/free-port.sh)
export GATEWAY_DATABASE_PATH="$work/.gateway/gateway.sqlite" GATEWAY_HTTP_PORT="$port" GATEWAY_LOG_LEVEL=warning
unset GATEWAY_REDIS_URL GATEWAY_DATABASE_URL
.build/debug/gateway serve >"$work/gateway.log" 2>&1 &
gateway=$!
trap 'kill $gateway 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
# The blocks run where a newcomer stands (the clone's root), seen through a scratch folder
# so their files (tenants.json, ...) land outside the work tree.
ln -s "$repo/.build" "$work/.build"; ln -s "$repo/scripts" "$work/scripts"
python3 - "$repo/README.md" "$port" >"$work/blocks.sh" <<'PY'
import re, sys
readme, port = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"<!-- readme-test -->\n```sh\n(.*?)```", readme, re.S)
if len(blocks) < 2:
    sys.exit("README: fewer than two blocks marked <!-- readme-test -->")
script = "\n".join(blocks).replace("localhost:8080", f"127.0.0.1:{port}").replace("127.0.0.1:8080", f"127.0.0.1:{port}")
# A 4xx or 5xx fails the run (curl -s alone would print the problem and succeed).
script = re.sub(r"\bcurl -s\b", "curl -fsS", script)
print("set -euo pipefail\n" + script)
PY
if (cd "$work" && bash "$work/blocks.sh" >"$work/out.txt" 2>&1); then
  echo "README examples: $(grep -c '' "$work/blocks.sh") lines of $(grep -c 'readme-test' README.md) blocks ran against a fresh gateway"
else
  echo "README examples failed:"; tail -n 20 "$work/out.txt"; echo "--- gateway log ---"; tail -n 20 "$work/gateway.log"; exit 1
fi
