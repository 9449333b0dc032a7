#!/usr/bin/env python3
"""The chaos workload, run on the client host: sign-ins, refreshes (and deliberate concurrent
reuse of one refresh token), revocations, storage writes, cached reads (from the fake
platform), tenant and release-policy changes, consent changes and push sends, spread over every gateway. Each operation is recorded as one JSON line (kind, gateway, start, end, outcome and
what the checker needs). `--final` runs after the faults healed: it reads every acknowledged
storage write back and probes every acknowledged revocation on every gateway.
Usage: workload.py GATEWAYS(comma-separated) DEMO_USER_FILE HISTORY SECONDS [--final]"""
import base64, hashlib, http.client, json, os, random, secrets, subprocess, sys, threading, time, urllib.parse

gateways = sys.argv[1].split(",")
fields = dict(line.split(": ", 1) for line in open(sys.argv[2]).read().splitlines() if ": " in line)
history_path, seconds = sys.argv[3], float(sys.argv[4])
final = "--final" in sys.argv
lock = threading.Lock()
out = open(history_path, "a")
CLIENT, REDIRECT = "demo-app", "http://127.0.0.1/callback"
DEADLINE = float(os.environ.get("CHAOS_CLIENT_TIMEOUT", "20"))
GATEWAYCTL = os.environ.get("CHAOS_GATEWAYCTL")  # with GATEWAY_DATABASE_URL and GATEWAY_MASTER_KEY


def record(entry):
    with lock:
        out.write(json.dumps(entry) + "\n")
        out.flush()


def call(gateway, method, path, body=None, headers=None, form=None):
    """One request; returns (status or None, parsed JSON or text, seconds). None: no answer."""
    host, port = gateway.removeprefix("http://").split(":")
    headers = dict(headers or {})
    if form is not None:
        body = urllib.parse.urlencode(form)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        headers.setdefault("Accept", "application/json")
    elif body is not None:
        body = json.dumps(body)
        headers["Content-Type"] = "application/json"
    started = time.time()
    try:
        connection = http.client.HTTPConnection(host, int(port), timeout=DEADLINE)
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return response.status, parsed, time.time() - started
    except Exception as error:  # refused, reset, timed out: no answer
        return None, repr(error)[:120], time.time() - started


def timed(kind, gateway, method, path, **kw):
    start = time.time()
    status, body, took = call(gateway, method, path, **kw)
    entry = {"kind": kind, "gateway": gateway, "start": start, "end": start + took, "status": status}
    if status is None:
        entry["error"] = body
    elif status >= 500:
        entry["body"] = str(body)[:200]
    return status, body, entry


def sign_in(gateway):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    status, body, entry = timed("sign_in", gateway, "POST", "/t/demo/oauth2/authorize", form={
        "response_type": "code", "client_id": CLIENT, "redirect_uri": REDIRECT, "scope": "openid",
        "state": "s", "code_challenge": challenge, "code_challenge_method": "S256",
        "username": fields["username"], "password": fields["password"]})
    record(entry)
    if status != 200:
        return None
    code = urllib.parse.parse_qs(urllib.parse.urlparse(body["redirect_to"]).query)["code"][0]
    status, body, entry = timed("exchange", gateway, "POST", "/t/demo/oauth2/token", form={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": CLIENT,
        "code_verifier": verifier})
    record(entry)
    return body if status == 200 else None


def signed_in():
    """Tokens from a sign-in through a random gateway, or None after half a second's pause."""
    tokens = sign_in(random.choice(gateways))
    if not tokens:
        time.sleep(0.5)
    return tokens


def digest(token):
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def refresh(gateway, token, kind="refresh"):
    status, body, entry = timed(kind, gateway, "POST", "/t/demo/oauth2/token", form={
        "grant_type": "refresh_token", "refresh_token": token, "client_id": CLIENT})
    entry["token"] = digest(token)
    if status == 200:
        entry["next"] = digest(body["refresh_token"])
    elif status is not None and isinstance(body, dict):
        entry["error_code"] = body.get("error")
    record(entry)
    return status, body


def until(stop):
    return time.time() < stop


def sessions(stop):
    """Sign in, then a chain of refreshes through random gateways; an unknown outcome ends the chain."""
    while until(stop):
        tokens = sign_in(random.choice(gateways))
        while tokens and until(stop):
            status, body = refresh(random.choice(gateways), tokens["refresh_token"])
            tokens = body if status == 200 else None
            time.sleep(0.05)
        time.sleep(0.1)


def races(stop):
    """One refresh token presented to every gateway at once: at most one rotation; a reuse
    revokes the family, so the winner's new token is refused everywhere."""
    while until(stop):
        tokens = sign_in(random.choice(gateways))
        if not tokens:
            time.sleep(0.5)
            continue
        results = [None] * len(gateways)

        def present(index):
            results[index] = refresh(gateways[index], tokens["refresh_token"], kind="race")

        threads = [threading.Thread(target=present, args=(i,)) for i in range(len(gateways))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        winners = [body for status, body in results if status == 200]
        reused = any(status == 400 for status, _ in results)
        if len(winners) == 1 and reused:
            follow = winners[0]["refresh_token"]
            for gateway in gateways:
                status, _ = refresh(gateway, follow, kind="after_reuse")
                record({"kind": "family_check", "gateway": gateway, "token": digest(follow), "status": status,
                        "start": time.time(), "end": time.time()})
        time.sleep(1.0)


def storage(stop):
    """Unique keys written through random gateways; acknowledged ones must survive."""
    tokens, n = None, 0
    while until(stop):
        tokens = tokens or signed_in()
        if not tokens:
            continue
        n += 1
        key, value = f"k{n}-{secrets.token_hex(4)}", secrets.token_hex(8)
        status, body, entry = timed(
            "storage_put", random.choice(gateways), "PUT", "/t/demo/v1/me/miniapps/hello/storage",
            body={"items": {key: value}}, headers={"Authorization": f"Bearer {tokens['access_token']}"})
        entry.update({"key": key, "value": value})
        record(entry)
        if status == 401:
            tokens = None
        time.sleep(0.05)


def revocations(stop):
    """Revoke an access token; every gateway must refuse it soon after (the time is recorded)."""
    while until(stop):
        tokens = sign_in(random.choice(gateways))
        if not tokens:
            time.sleep(0.5)
            continue
        access = tokens["access_token"]
        status, _, entry = timed("revoke", random.choice(gateways), "POST", "/t/demo/oauth2/revoke",
                                 form={"client_id": CLIENT, "token": access})
        entry["token"] = digest(access)
        record(entry)
        if status == 200:
            acked = entry["end"]
            for gateway in gateways:
                probe_deadline = time.time() + 15
                while time.time() < probe_deadline:
                    code, _, _ = call(gateway, "GET", "/t/demo/v1/me", headers={"Authorization": f"Bearer {access}"})
                    if code == 401:
                        record({"kind": "revoked_seen", "gateway": gateway, "token": digest(access),
                                "after": time.time() - acked, "start": acked, "end": time.time(), "status": 401})
                        break
                    time.sleep(0.1)
                else:
                    record({"kind": "revoked_unseen", "gateway": gateway, "token": digest(access), "access": access,
                            "start": acked, "end": time.time(), "status": None})
        time.sleep(1.0)


def reads(stop):
    tokens = None
    while until(stop):
        tokens = tokens or signed_in()
        if not tokens:
            continue
        status, _, entry = timed("read", random.choice(gateways), "GET", "/t/demo/v1/miniapps/hello",
                                 headers={"Authorization": f"Bearer {tokens['access_token']}"})
        record(entry)
        if status == 401:
            tokens = None
        time.sleep(0.05)


def storage_cap(stop):
    """Writes near the cap: 20 KB values under unique keys in the demo user's storage of the
    `weather` mini app, through random doors from two threads, until the gateway answers 413
    storage_full; then every door's size report is recorded (used must never pass max) and the
    storage cleared. The acknowledged bytes are recorded too."""
    tokens, n = None, 0
    value = "v" * 20_000
    path = "/t/demo/v1/me/miniapps/weather/storage"
    while until(stop):
        tokens = tokens or signed_in()
        if not tokens:
            continue
        auth = {"Authorization": f"Bearer {tokens['access_token']}"}
        n += 1
        key = f"cap{n}-{secrets.token_hex(4)}"
        status, body, entry = timed("cap_put", random.choice(gateways), "PUT", path, body={"items": {key: value}},
                                    headers=auth)
        entry["code"] = body.get("code") if isinstance(body, dict) else None
        record(entry)
        if status == 401:
            tokens = None
        elif status == 413 and entry["code"] == "storage_full":
            for gateway in gateways:
                code, size, entry = timed("cap_size", gateway, "GET", path + "/size", headers=auth)
                if code == 200 and isinstance(size, dict):
                    entry.update({"used": size.get("used"), "max": size.get("max")})
                record(entry)
            cap_lock.acquire()  # one clear at a time; the other thread's writes go on meanwhile
            try:
                record(timed("cap_clear", random.choice(gateways), "DELETE", path + "/all", headers=auth)[2])
            finally:
                cap_lock.release()
        time.sleep(0.02)


cap_lock = threading.Lock()


def display_name(gateway):
    status, body, _ = call(gateway, "GET", "/t/demo/v1/host-config")
    return status, body.get("displayName") if status == 200 and isinstance(body, dict) else None


def gatewayctl(*args):
    """One gatewayctl run against the cluster's database; whether it succeeded."""
    try:
        return subprocess.run([GATEWAYCTL, *args], capture_output=True, timeout=20).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def tenant_changes(stop):
    """`gatewayctl tenant update` of the demo tenant's display name, then every door polled
    until it serves the new name; every answer with an older one is recorded (the checker
    decides whether a fault excused it)."""
    n = 0
    while until(stop):
        n += 1
        name = f"Demo {n} {secrets.token_hex(3)}"
        start = time.time()
        done = gatewayctl("tenant", "update", "demo", "--display-name", name)
        acked = time.time()
        record({"kind": "tenant_update", "name": name, "start": start, "end": acked, "status": 200 if done else None})
        if done:
            for gateway in gateways:
                threading.Thread(target=watch_tenant, args=(gateway, name, acked), daemon=True).start()
        time.sleep(3.0)


def watch_tenant(gateway, name, acked):
    deadline = acked + 15
    while time.time() < deadline:
        status, served = display_name(gateway)
        if served == name:
            record({"kind": "tenant_seen", "gateway": gateway, "name": name, "after": time.time() - acked,
                    "start": acked, "end": time.time(), "status": status})
            return
        if status == 200 and served is not None and not served_later(served, name):
            record({"kind": "tenant_stale", "gateway": gateway, "name": name, "served": served, "acked": acked,
                    "start": time.time(), "end": time.time(), "status": status})
        time.sleep(0.1)


def served_later(served, name):
    """A newer change than `name` (the next one may already be out)."""
    def number(text):
        parts = text.split()
        return int(parts[1]) if len(parts) == 3 and parts[0] == "Demo" and parts[1].isdigit() else -1
    return number(served) > number(name)


NOTIFY = "gateway.user.NOTIFICATIONS"
SENDER = os.environ.get("CHAOS_SENDER", ":")  # client_id:secret of hello's backend


def answered(kind, method, path, **kw):
    """Repeats an idempotent call through random doors until one answers below 500 (for at
    most a minute): returns (status, body), recording each attempt; (None, None) if none did."""
    give_up = time.time() + 60
    while time.time() < give_up:
        status, body, entry = timed(kind, random.choice(gateways), method, path, **kw)
        record(entry)
        if status is not None and status < 500:
            return status, body
        time.sleep(0.3)
    return None, None


def sender_token():
    basic = base64.b64encode(SENDER.encode()).decode()
    status, body = answered("sender_token", "POST", "/t/demo/oauth2/token", form={"grant_type": "client_credentials"},
                            headers={"Authorization": f"Basic {basic}"})
    return body["access_token"] if status == 200 and isinstance(body, dict) else None


def push_and_consent(stop):
    """The demo user's phone registered once; then, in turn, the user allows and denies
    notifications from hello (a consent change, PUT until acknowledged) and after each ack
    hello's backend sends the user a notification carrying a nonce (retried through random
    doors under one Idempotency-Key until answered). A message sent while allowed is followed
    until its delivery ends (before consent changes again); one sent while denied must end
    `skippedNoConsent`. The checker matches nonces against what the fake FCM accepted."""
    tokens, subject, device, sender, allowed = None, None, None, None, True
    while until(stop):
        tokens = tokens or signed_in()
        if not tokens:
            continue
        user = {"Authorization": f"Bearer {tokens['access_token']}"}
        if subject is None:
            status, body = answered("me", "GET", "/t/demo/v1/me", headers=user)
            subject = body.get("sub") if status == 200 and isinstance(body, dict) else None
        if device is None and subject:
            status, _ = answered("device", "POST", "/t/demo/v1/me/devices", headers=user, body={
                "provider": "fcm", "token": f"chaos-phone-{secrets.token_hex(8)}", "platform": "android",
                "locale": "en-US"})
            device = status in (200, 201) or None
        sender = sender or sender_token()
        if not (subject and device and sender):
            tokens = sender = None
            time.sleep(0.5)
            continue
        state = "ALLOWED" if allowed else "DENIED"
        status, _ = answered("consent", "PUT", "/t/demo/v1/me/miniapps/hello/permissions", headers=user,
                             body={"permissions": [{"name": NOTIFY, "status": state}]})
        if status == 401:
            tokens = None
            continue
        acked = time.time()
        if status != 200:
            record({"kind": "consent_refused", "status": status, "start": acked, "end": acked})
            time.sleep(1)
            continue
        nonce, status, body = secrets.token_hex(8), None, None
        while until(stop):
            status, body = answered("push_send", "POST", "/t/demo/v1/notifications", body={
                "miniAppId": "hello", "to": {"userIds": [subject]}, "data": {"nonce": nonce},
                "text": {"default": {"title": "Chaos", "body": nonce}}},
                headers={"Authorization": f"Bearer {sender}", "Idempotency-Key": f"chaos-{nonce}"})
            if status != 401:
                break
            sender = sender_token()
        if status not in (200, 202) or not isinstance(body, dict):
            record({"kind": "push_unsent", "nonce": nonce, "status": status, "start": acked, "end": time.time()})
            allowed = not allowed
            continue
        record({"kind": "push_sent", "nonce": nonce, "id": body["id"], "consent": state, "acked": acked,
                "start": acked, "end": time.time(), "status": status})
        follow_push(body["id"], nonce, sender, stop if allowed else 0)
        allowed = not allowed
        time.sleep(0.3)


def follow_push(message, nonce, sender, until_time):
    """Polls a message's status until no delivery is pending (or `until_time`; 0: once);
    records the last counts seen."""
    while True:
        status, body, _ = call(random.choice(gateways), "GET", f"/t/demo/v1/notifications/{message}",
                               headers={"Authorization": f"Bearer {sender}"})
        counts = body.get("counts") if status == 200 and isinstance(body, dict) else None
        if counts and counts.get("pending") == 0 or time.time() >= until_time:
            record({"kind": "push_status", "id": message, "nonce": nonce, "counts": counts, "status": status,
                    "start": time.time(), "end": time.time()})
            return counts
        time.sleep(0.25)


release_generation = [0]  # the newest acknowledged release change; older watchers stop


def release_changes(stop):
    """`gatewayctl release set` of hello in turn: v2 as a candidate for 100 % of users, then no
    candidate (everyone gets the platform's latest, v1); after each acknowledgement every door
    is polled with the user's token until `miniapps/hello` names the version, and every answer
    naming the other one is recorded (the checker decides whether a fault excused it)."""
    tokens, n = None, 0
    while until(stop):
        tokens = tokens or signed_in()
        if not tokens:
            continue
        n += 1
        version = "v2" if n % 2 else "v1"
        change = ["--candidate", "v2", "--percent", "100"] if version == "v2" else ["--no-candidate"]
        start = time.time()
        done = gatewayctl("release", "set", "--tenant", "demo", "hello", *change, "--reason", f"chaos {n}")
        acked = time.time()
        record({"kind": "release_update", "name": version, "n": n, "start": start, "end": acked,
                "status": 200 if done else None})
        if done:
            release_generation[0] = n
            for gateway in gateways:
                threading.Thread(target=watch_release, args=(gateway, n, version, acked, tokens["access_token"]),
                                 daemon=True).start()
        time.sleep(3.0)


def served_version(gateway, access):
    status, body, _ = call(gateway, "GET", "/t/demo/v1/miniapps/hello", headers={"Authorization": f"Bearer {access}"})
    version = body.get("version") if status == 200 and isinstance(body, dict) else None
    return status, version.get("versionId") if isinstance(version, dict) else None


def watch_release(gateway, n, version, acked, access):
    deadline = acked + 15
    while time.time() < deadline and release_generation[0] == n:
        status, served = served_version(gateway, access)
        if served == version:
            record({"kind": "release_seen", "gateway": gateway, "name": version, "after": time.time() - acked,
                    "start": acked, "end": time.time(), "status": status})
            return
        if served is not None and release_generation[0] == n:
            record({"kind": "release_stale", "gateway": gateway, "name": version, "served": served, "acked": acked,
                    "start": time.time(), "end": time.time(), "status": status})
        time.sleep(0.1)


def final_served(entries, kind, serve):
    """Every door serves the last acknowledged change of `kind` (or a later attempt's, which
    may have landed unacknowledged): `serve(gateway)` is (status, what it serves)."""
    updates = [e for e in entries if e["kind"] == f"{kind}_update"]
    acked = [e for e in updates if e["status"] == 200]
    if not acked:
        return
    last = acked[-1]
    allowed = [last["name"]] + [e["name"] for e in updates if e["start"] > last["start"]]
    for gateway in gateways:
        status, served = serve(gateway)
        record({"kind": f"{kind}_final", "gateway": gateway, "served": served, "allowed": allowed,
                "start": time.time(), "end": time.time(), "status": status})


def final_checks():
    """After healing: every acknowledged write reads back; every unseen revocation is refused now."""
    entries = [json.loads(line) for line in open(history_path)]
    tokens = None
    for _ in range(30):
        tokens = sign_in(gateways[0])
        if tokens:
            break
        time.sleep(1)
    acked = {e["key"]: e["value"] for e in entries if e["kind"] == "storage_put" and e["status"] == 200}
    for index, (key, value) in enumerate(sorted(acked.items())):
        gateway = gateways[index % len(gateways)]
        status, body, entry = timed("storage_get", gateway, "GET", f"/t/demo/v1/me/miniapps/hello/storage/{key}",
                                    headers={"Authorization": f"Bearer {tokens['access_token']}"})
        entry.update({"key": key, "expected": value, "got": body.get("value") if isinstance(body, dict) else None})
        record(entry)
    final_served(entries, "tenant", display_name)
    pushes = {e["id"]: e for e in entries if e["kind"] == "push_sent"}
    last = {e["id"]: e["counts"] for e in entries if e["kind"] == "push_status"}
    sender = sender_token() if pushes else None
    settle = time.time() + 60  # past a dead replica's 10 s lease and a few retry backoffs
    for message, sent in pushes.items():
        counts = last.get(message)
        if not counts or counts.get("pending"):
            follow_push(message, sent["nonce"], sender, settle)
    final_served(entries, "release", lambda gateway: served_version(gateway, tokens["access_token"]))
    for e in entries:
        if e["kind"] == "revoked_unseen":
            status, _, entry = timed("revoked_final", e["gateway"], "GET", "/t/demo/v1/me",
                                     headers={"Authorization": f"Bearer {e['access']}"})
            entry["token"] = e["token"]
            record(entry)


if final:
    final_checks()
else:
    stop = time.time() + seconds
    workers = [threading.Thread(target=work, args=(stop,)) for work in
               (sessions, sessions, races, storage, storage, revocations, reads, reads, tenant_changes,
                storage_cap, storage_cap, push_and_consent, release_changes)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
