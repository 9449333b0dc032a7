#!/usr/bin/env bash
# Journeys (issue 63): the steps' latency, sign-ups per minute through a real SMTP server, the
# gateway's memory, and the answers for identifiers an account holds beside ones nobody holds
# (medians side by side: an identifier must not be told apart by timing). One gateway on
# SQLite + Redis with its courier on; aiosmtpd on loopback (Tests/Interop/smtp_sink.py) and the
# fake Twilio (Tests/Interop/sms_fake.py); the client (Python, 8 threads) shares the two cores.
# Every request names a client address of its own through X-Forwarded-For (the gateway trusts
# loopback as its proxy), so the per-address bounds of a real population apply, not one
# address's. BENCH_SIGNUPS (default 300) sign-ups; BENCH_PAIRS (default 60) pairs per timing.
# Usage: scripts/bench-journeys.sh [BIN_DIR]   (default .build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}
signups=${BENCH_SIGNUPS:-300}
pairs=${BENCH_PAIRS:-60}
source scripts/lib.sh
start_redis
mkdir -p "$work/mail" "$work/sms"
python3 Tests/Interop/smtp_sink.py "$work/mail" plain >"$work/smtp.out" 2>&1 &
pids+=($!)
python3 Tests/Interop/sms_fake.py "$work/sms" AC0bench fake-bench-auth-token-01 >"$work/sms.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q listening "$work/smtp.out" "$work/sms.out" 2>/dev/null \
  && [[ $(grep -l listening "$work/smtp.out" "$work/sms.out" | wc -l) == 2 ]] && break; sleep 0.1; done
smtp_port=$(awk '/listening/ {print $2}' "$work/smtp.out")
sms_port=$(awk '/listening/ {print $2}' "$work/sms.out")
export GATEWAY_DATABASE_PATH="$work/journeys.sqlite" GATEWAY_REDIS_URL="redis://127.0.0.1:$redis_port/0"
export GATEWAY_MASTER_KEY=$(head -c 32 /dev/urandom | base64) GATEWAY_LOG_LEVEL=error
export GATEWAY_TRUSTED_PROXIES=127.0.0.1/32 GATEWAY_COURIER_RETRY_BASE_MS=200
"$bin/gatewayctl" tenant create bench --display-name Bench >/dev/null
cat >"$work/journeys.json" <<JSON
{"signUp": true, "identifiers": ["username", "email", "phone"], "verify": ["email", "phone"],
 "recovery": ["email", "phone"], "factors": ["password", "sms-code"], "signUpsPerAddressPerHour": 10000}
JSON
cat >"$work/courier.json" <<JSON
{"smtp": {"url": "smtp://127.0.0.1:$smtp_port", "from": "no-reply@bench.example", "startTLS": "off"},
 "sms": {"provider": "twilio", "url": "http://127.0.0.1:$sms_port", "accountSid": "AC0bench",
         "authToken": "fake-bench-auth-token-01", "from": "+15005550006", "allowedCountries": ["81"],
         "perCountryPerHour": 1000000}}
JSON
"$bin/gatewayctl" tenant update bench --journeys-file "$work/journeys.json" --courier-file "$work/courier.json" >/dev/null
# A tenant signing up with an e-mail address alone: the sign-ups per minute through the relay.
"$bin/gatewayctl" tenant create mail --display-name Mail >/dev/null
echo '{"signUp": true, "identifiers": ["email"], "verify": ["email"], "signUpsPerAddressPerHour": 10000}' >"$work/mail.json"
"$bin/gatewayctl" tenant update mail --journeys-file "$work/mail.json" --courier-file "$work/courier.json" >/dev/null
for tenant in bench mail; do
  "$bin/gatewayctl" client add --tenant "$tenant" --client-id app --first-party --redirect-uri com.bench.app:/cb >/dev/null
done
password="bench journeys passphrase $RANDOM$RANDOM"
known=$((pairs + 20))
for n in $(seq 1 "$known"); do
  echo "$password" | "$bin/gatewayctl" user add --tenant bench --username "k$n" --email "k$n@bench.example" \
    --phone "+8190$(printf '%08d' "$n")" --password-stdin >/dev/null
done
port=$(scripts/free-port.sh)
GATEWAY_HTTP_PORT=$port "$bin/gateway" serve >"$work/journeys-gateway.log" 2>&1 &
gateway=$!
pids+=($gateway)
for _ in $(seq 1 200); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
python3 - "http://127.0.0.1:$port" "$work/mail/received.jsonl" "$signups" "$pairs" "$password" "$gateway" <<'PY'
import base64, email, hashlib, json, os, re, secrets, statistics, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
import requests

base, mailbox, signups, pairs, password, gateway = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
local = threading.local()
addresses = iter(range(1, 1 << 30))
lock = threading.Lock()


def session():
    if not hasattr(local, "s"):
        local.s = requests.Session()
    return local.s


def address():
    """A client address of its own for each journey (one person each)."""
    with lock:
        n = next(addresses)
    return f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


def call(url, body, who):
    started = time.perf_counter()
    answer = session().post(url, json=body, headers={"X-Forwarded-For": who})
    return answer, time.perf_counter() - started


def start(tenant, kind, who):
    challenge = base64.urlsafe_b64encode(hashlib.sha256(secrets.token_bytes(32)).digest()).rstrip(b"=").decode()
    answer, took = call(f"{base}/t/{tenant}/v1/journeys", {"kind": kind, "clientId": "app", "codeChallenge": challenge,
                        "codeChallengeMethod": "S256"}, who)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"], took


def step(tenant, journey, values, who, action="submit"):
    return call(f"{base}/t/{tenant}/v1/journeys/{journey}", {"action": action, "values": values}, who)


def p(values, q):
    values = sorted(values)
    return 1000 * values[min(len(values) - 1, int(len(values) * q))]


# 1. The steps without the courier: start, identify (a username), password (scrypt), then a
#    wrong password (the same check), each timed on its own.
timings = {"start": [], "identify": [], "password": []}
def sign_in(n):
    who = address()
    journey, took = start("bench", "sign-in", who)
    timings["start"].append(took)
    answer, took = step("bench", journey, {"identifier": f"k{n % 40 + 1}"}, who)
    assert answer.status_code == 200, answer.text
    timings["identify"].append(took)
    answer, took = step("bench", journey, {"password": password}, who)
    assert answer.status_code == 200 and "authorizationCode" in answer.json(), answer.text
    timings["password"].append(took)
with ThreadPoolExecutor(8) as pool:
    list(pool.map(sign_in, range(200)))
print("journeys bench: steps without the courier (200 sign-ins, 8 threads): " + ", ".join(
    f"{name} p50 {p(values, 0.5):.1f} ms p95 {p(values, 0.95):.1f} ms" for name, values in timings.items()))

# 2. Sign-ups through the real SMTP server: register, the code read from the mail, the code.
codes, codes_lock = {}, threading.Lock()
def read_mail():
    offset = 0
    while not done.is_set():
        if os.path.exists(mailbox):
            with open(mailbox) as file:
                file.seek(offset)
                for line in file:
                    record = json.loads(line)
                    text = email.message_from_string(record["data"]).get_payload(decode=True).decode()
                    with codes_lock:
                        codes[record["to"][0]] = re.search(r"\b[0-9]{6}\b", text).group(0)
                offset = file.tell()
        time.sleep(0.02)
done = threading.Event()
reader = threading.Thread(target=read_mail)
reader.start()
def sign_up(n):
    who = address()
    mail = f"new{n}-{secrets.token_hex(3)}@bench.example"
    journey, _ = start("mail", "sign-up", who)
    answer, _ = step("mail", journey, {"email": mail, "password": "a long enough password"}, who)
    assert answer.status_code == 200, answer.text
    deadline = time.time() + 60
    while time.time() < deadline:
        with codes_lock:
            code = codes.get(mail)
        if code:
            break
        time.sleep(0.02)
    assert code, f"no mail for {mail}"
    answer, _ = step("mail", journey, {"code": code}, who)
    assert answer.status_code == 200 and "authorizationCode" in answer.json(), answer.text
started = time.perf_counter()
with ThreadPoolExecutor(8) as pool:
    list(pool.map(sign_up, range(signups)))
elapsed = time.perf_counter() - started
done.set()
reader.join()
rss = [line for line in open(f"/proc/{gateway}/status") if line.startswith(("VmRSS", "VmHWM"))]
print(f"journeys bench: {signups} e-mail sign-ups (register, the code through aiosmtpd, the code) in {elapsed:.1f} s: "
      f"{60 * signups / elapsed:.0f} sign-ups/min; gateway " + ", ".join(" ".join(line.split()) for line in rss))

# 3. An identifier an account holds beside one nobody holds, one at a time, interleaved: the
#    sign-up's register step, the recovery's first step, and a sign-in code request by SMS.
def timed(tenant, kind, values_for, identifier):
    who = address()
    journey, _ = start(tenant, kind, who)
    answer, took = step(tenant, journey, values_for(identifier), who)
    return took, answer.status_code, sorted(answer.json()["screen"].keys()), answer.json()["screen"]["name"]

cases = [
    ("sign-up register", "sign-up", lambda i: {"username": "u" + secrets.token_hex(5), "email": f"k{i}@bench.example"},
     lambda i: {"username": "u" + secrets.token_hex(5), "email": f"nobody{i}-{secrets.token_hex(3)}@bench.example"}),
    ("recovery", "recovery", lambda i: {"identifier": f"k{i}@bench.example"},
     lambda i: {"identifier": f"nobody{i}-{secrets.token_hex(3)}@bench.example"}),
    ("SMS code request", "sign-in", lambda i: {"identifier": f"+8190{i:08d}"},
     lambda i: {"identifier": f"+8199{secrets.randbelow(10**8):08d}"}),
]
for name, kind, known, unknown in cases:
    results = []
    for i in range(1, pairs + 1):
        a = timed("bench", kind, lambda _: dict(known(i), phone=f"+8180{i:08d}", password="a long enough password")
                  if kind == "sign-up" else known(i), i)
        b = timed("bench", kind, lambda _: dict(unknown(i), phone=f"+8181{i:08d}", password="a long enough password")
                  if kind == "sign-up" else unknown(i), i)
        results.append((a, b))
    assert all(a[1:] == b[1:] for a, b in results), f"{name}: the answers differ: {results[0]}"
    k = statistics.median(a[0] for a, _ in results) * 1000
    u = statistics.median(b[0] for _, b in results) * 1000
    print(f"journeys bench: {name} median, held by an account {k:.2f} ms, held by nobody {u:.2f} ms "
          f"(ratio {u / k:.2f}, {pairs} each, same status {results[0][0][1]} and screen)")
PY
