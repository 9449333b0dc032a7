#!/usr/bin/env bash
# Bulk import against one `add` per process, side by side on one database (SQLite, or
# PostgreSQL when GATEWAY_DATABASE_URL is set): N clients with `client import`, the first
# 100 of them again with `client add` (per-process cost, extrapolated), N users carried over
# as scrypt hashes, and 100 users with plaintext passwords (hashed on every core).
# Usage: scripts/bench-import.sh [N] [gatewayctl]   (default 10000, .build/debug/gatewayctl)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
ctl=$(realpath "${2:-.build/debug/gatewayctl}")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export GATEWAY_DATABASE_PATH="$work/gateway.sqlite" GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
engine=${GATEWAY_DATABASE_URL:+PostgreSQL}; engine=${engine:-SQLite}
"$ctl" migrate >/dev/null
for t in bulk single users hashed; do "$ctl" tenant create "b$t$$" --display-name bench >/dev/null; done
python3 - "$n" "$work" <<'PY'
import json, sys
n, work = int(sys.argv[1]), sys.argv[2]
clients = [{"clientID": f"app-{i:06d}", "redirectURIs": ["https://app.example/cb"], "confidential": i % 10 == 0} for i in range(n)]
json.dump(clients, open(f"{work}/clients.json", "w"))
# One scrypt hash (logN 15, as the gateway writes them) reused: the import stores hashes as given.
hash = "scrypt$15$8$1$c2FsdHNhbHRzYWx0c2FsdA$" + "A" * 43
json.dump([{"username": f"user-{i:06d}", "passwordHash": hash} for i in range(n)], open(f"{work}/users.json", "w"))
json.dump([{"username": f"pw-{i:03d}", "password": f"password-{i:03d}"} for i in range(100)], open(f"{work}/passwords.json", "w"))
PY
seconds() {
  python3 -c 'import subprocess, sys, time; t = time.monotonic(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); print(time.monotonic() - t)' "$@"
}
bulk=$(seconds "$ctl" client import "$work/clients.json" --tenant "bbulk$$")
single=$(seconds bash -c "for i in \$(seq -w 0 99); do '$ctl' client add --tenant bsingle$$ --client-id app-\$i --redirect-uri https://app.example/cb; done")
users=$(seconds "$ctl" user import "$work/users.json" --tenant "busers$$")
hashed=$(seconds "$ctl" user import "$work/passwords.json" --tenant "bhashed$$")
python3 - "$n" "$bulk" "$single" "$users" "$hashed" "$engine" <<'PY'
import os, sys
n, bulk, single, users, hashed, engine = int(sys.argv[1]), *map(float, sys.argv[2:6]), sys.argv[6]
per_add = single / 100
print(f"{engine}: {n} clients")
print(f"  client import (one process, one transaction): {bulk:7.1f} s  ({n / bulk:,.0f} clients/s)")
print(f"  client add x100 (one process each):          {single:7.1f} s  ({per_add * 1000:.0f} ms each; {n} would take {per_add * n / 60:.1f} min)")
print(f"  ratio, {n} adds / one import:                {per_add * n / bulk:7.0f}x")
print(f"  user import, {n} carried-over scrypt hashes:  {users:7.1f} s")
print(f"  user import, 100 plaintext passwords:        {hashed:7.1f} s  ({hashed * 10:.0f} ms of wall time each on {os.cpu_count()} cores)")
PY
