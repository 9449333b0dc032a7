#!/usr/bin/env bash
# Runs the shell blocks marked `<!-- readme-test -->` in README.md and then in the docs pages it
# links (in the README's order), as a newcomer would paste them, against a fresh development
# gateway (empty database, free port): every command must succeed and every curl must answer
# 2xx. Later blocks build on earlier ones (tenants, clients). Usage: scripts/readme-examples.sh WORKDIR
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${1:?workdir}/readme
rm -rf "$work"; mkdir -p "$work/.gateway"
port=$(scripts/free-port.sh)
# The admin listener, as `make run` serves it on 8081.
admin_port=$(scripts/free-port.sh)
# The push walk-through sends through a fake FCM (scripts/fake-fcm.py), never Google.
fcm_port=$(scripts/free-port.sh)
python3 scripts/fake-fcm.py "$fcm_port" &
fake_fcm=$!
export FAKE_FCM="http://127.0.0.1:$fcm_port" GATEWAY_PUSH_FCM_URL="http://127.0.0.1:$fcm_port"
export GATEWAY_DATABASE_PATH="$work/.gateway/gateway.sqlite" GATEWAY_HTTP_PORT="$port" GATEWAY_ADMIN_PORT="$admin_port" GATEWAY_LOG_LEVEL=warning
unset GATEWAY_REDIS_URL GATEWAY_DATABASE_URL
.build/debug/gateway serve >"$work/gateway.log" 2>&1 &
gateway=$!
trap 'kill $gateway $fake_fcm 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
# The blocks run where a newcomer stands (the clone's root), seen through a scratch folder
# so their files (tenants.json, ...) land outside the work tree.
ln -s "$repo/.build" "$work/.build"; ln -s "$repo/scripts" "$work/scripts"
python3 - "$port" "$admin_port" >"$work/blocks.sh" <<'PY'
import glob, re, sys
port, admin_port = sys.argv[1], sys.argv[2]
# README.md, then each docs page in the order the README first links it.
readme = open("README.md").read()
pages = ["README.md"] + list(dict.fromkeys(re.findall(r"\]\((docs/[\w-]+\.md)", readme)))
marked = lambda page: re.findall(r"<!-- readme-test -->\n```sh\n(.*?)```", open(page).read(), re.S)
for page in sorted(glob.glob("docs/*.md")):
    if page not in pages and marked(page):
        sys.exit(f"{page} has blocks marked <!-- readme-test --> but the README does not link it")
blocks = [block for page in pages for block in marked(page)]
if len(blocks) < 8:
    sys.exit(f"README and docs: {len(blocks)} blocks marked <!-- readme-test -->, expected at least 8")
script = "\n".join(blocks).replace("localhost:8080", f"127.0.0.1:{port}").replace("127.0.0.1:8080", f"127.0.0.1:{port}")
script = script.replace("localhost:8081", f"127.0.0.1:{admin_port}").replace("127.0.0.1:8081", f"127.0.0.1:{admin_port}")
# A 4xx or 5xx fails the run (curl -s alone would print the problem and succeed).
script = re.sub(r"\bcurl -s\b", "curl -fsS", script)
print("set -euo pipefail\n" + script)
PY
if (cd "$work" && bash "$work/blocks.sh" >"$work/out.txt" 2>&1); then
  echo "README and docs examples: $(grep -c '' "$work/blocks.sh") lines of $(cat README.md docs/*.md | grep -c '^<!-- readme-test -->') blocks ran against a fresh gateway"
else
  echo "README and docs examples failed:"; tail -n 20 "$work/out.txt"; echo "--- gateway log ---"; tail -n 20 "$work/gateway.log"; exit 1
fi
