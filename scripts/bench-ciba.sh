#!/usr/bin/env bash
# OpenID CIBA through the super app (issue 50): whole flows per second on this machine
# (bc-authorize, the host app's approve, the token request), and the backchannel endpoint's
# time for a hint that names a user beside one that names nobody (medians, to show an unknown
# user is not told apart by timing). One gateway on SQLite + Redis; the client (Python, 8
# threads) shares the two cores with it. Users: BENCH_CIBA_USERS (default 60), each asked at
# most 5 times (the per-user limit), so flows = 5 × users.
# Usage: scripts/bench-ciba.sh [BIN_DIR]   (default .build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
users=${BENCH_CIBA_USERS:-60}
source scripts/lib.sh
start_redis
export GATEWAY_DATABASE_PATH="$work/ciba.sqlite" GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) GATEWAY_LOG_LEVEL=error GATEWAY_CIBA_POLL_INTERVAL_S=1
port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$port "$bin/gateway" serve >"$work/ciba-gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
"$bin/gatewayctl" client add --tenant demo --client-id bench-host --first-party --redirect-uri http://127.0.0.1/callback >/dev/null
"$bin/gatewayctl" client add --tenant demo --client-id tv --confidential --grant-type ciba --json >"$work/tv.json"
"$bin/gatewayctl" client add --tenant demo --client-id kiosk --confidential --grant-type ciba --json >"$work/kiosk.json"
password="bench ciba passphrase $RANDOM$RANDOM"
for n in $(seq 1 $((users + 40))); do
  echo "$password" | "$bin/gatewayctl" user add --tenant demo --username "u$n" --password-stdin >/dev/null
done
python3 - "http://127.0.0.1:$port" "$work/tv.json" "$work/kiosk.json" "$users" "$password" <<'PY'
import base64, hashlib, json, secrets, statistics, sys, threading, time, urllib.parse
from concurrent.futures import ThreadPoolExecutor
import requests

base, tv_file, kiosk_file, users, password = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
issuer = f"{base}/t/demo"
tv = ("tv", json.load(open(tv_file))["clientSecret"])
kiosk = ("kiosk", json.load(open(kiosk_file))["clientSecret"])
local = threading.local()

def session():
    if not hasattr(local, "s"):
        local.s = requests.Session()
    return local.s

def host_token(username):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    form = {"response_type": "code", "client_id": "bench-host", "redirect_uri": "http://127.0.0.1/callback",
            "scope": "openid", "state": "s", "code_challenge": challenge, "code_challenge_method": "S256",
            "username": username, "password": password}
    answer = session().post(f"{issuer}/oauth2/authorize", data=form, headers={"Accept": "application/json"})
    code = urllib.parse.parse_qs(urllib.parse.urlparse(answer.json()["redirect_to"]).query)["code"][0]
    tokens = session().post(f"{issuer}/oauth2/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1/callback",
        "code_verifier": verifier, "client_id": "bench-host"}).json()
    return tokens["access_token"]

with ThreadPoolExecutor(8) as pool:
    tokens = dict(zip(range(1, users + 1), pool.map(host_token, [f"u{n}" for n in range(1, users + 1)])))

def flow(n):
    started = time.perf_counter()
    asked = session().post(f"{issuer}/oauth2/bc-authorize", auth=tv,
                           data={"scope": "openid", "login_hint": f"u{n}", "binding_message": f"TV {n}"})
    assert asked.status_code == 200, asked.text
    auth_req_id = asked.json()["auth_req_id"]
    approved = session().post(f"{issuer}/v1/me/sign-in-requests/{auth_req_id}/approve",
                              headers={"Authorization": f"Bearer {tokens[n]}"})
    assert approved.status_code == 204, approved.text
    granted = session().post(f"{issuer}/oauth2/token", auth=tv,
                             data={"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": auth_req_id})
    assert granted.status_code == 200, granted.text
    return time.perf_counter() - started

work = [n for n in range(1, users + 1) for _ in range(5)]
started = time.perf_counter()
with ThreadPoolExecutor(8) as pool:
    durations = list(pool.map(flow, work))
elapsed = time.perf_counter() - started
durations.sort()
print(f"ciba bench: {len(work)} flows (bc-authorize + approve + token) in {elapsed:.1f} s: "
      f"{len(work) / elapsed:.0f} flows/s, {3 * len(work) / elapsed:.0f} req/s; flow p50 "
      f"{1000 * durations[len(durations) // 2]:.1f} ms, p95 {1000 * durations[int(len(durations) * 0.95)]:.1f} ms "
      f"(8 client threads on the same 2 cores)")

def ask(hint):
    started = time.perf_counter()
    answer = session().post(f"{issuer}/oauth2/bc-authorize", auth=kiosk, data={"scope": "openid", "login_hint": hint})
    took = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    return took, sorted(answer.json().keys())

known = [f"u{n}" for n in range(users + 1, users + 41) for _ in range(5)]
unknown = [f"nobody-{secrets.token_hex(4)}" for _ in range(len(known))]
pairs = []
for a, b in zip(known, unknown):  # interleaved, one at a time
    pairs.append((ask(a), ask(b)))
assert all(k[1] == u[1] for k, u in pairs), "the answers differ in shape"
known_median = statistics.median(k[0] for k, _ in pairs) * 1000
unknown_median = statistics.median(u[0] for _, u in pairs) * 1000
print(f"ciba bench: bc-authorize median, hint naming a user {known_median:.2f} ms, naming nobody "
      f"{unknown_median:.2f} ms (ratio {unknown_median / known_median:.2f}, {len(pairs)} each, same status and keys)")
PY
