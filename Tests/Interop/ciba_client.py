#!/usr/bin/env python3
"""A CIBA client written from OpenID CIBA Core 1.0 (not from the gateway's code), with the
host app's part played through the gateway's documented host-app API.

Usage: ciba_client.py BASE TENANT POLL_ID POLL_SECRET PING_ID PING_SECRET PING_PORT LOGIN_HINT HOST_TOKEN

Poll mode (§7, §10.1, §11): authorization_pending, slow_down when polled faster than the
interval, the host app's approval, tokens whose ID token verifies against the JWKS (signature,
iss, aud, exp, at_hash); a denial → access_denied; no answer → expired_token. Ping mode
(§10.2): the notification reaches the client's endpoint with its client_notification_token as
bearer, then the tokens. And the error table (§13) for malformed requests. Prints one
"ok <step>" line per step; exits non-zero on the first failure.
"""
import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import requests
from authlib.jose import JsonWebKey, jwt

GRANT = "urn:openid:params:grant-type:ciba"


def main():
    base, tenant, poll_id, poll_secret, ping_id, ping_secret, ping_port, hint, host_token = sys.argv[1:10]
    issuer = f"{base}/t/{tenant}"
    meta = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=30).json()
    assert GRANT in meta["grant_types_supported"], meta
    assert set(meta["backchannel_token_delivery_modes_supported"]) >= {"poll", "ping"}, meta
    assert meta["backchannel_user_code_parameter_supported"] is True, meta
    endpoint, token_endpoint = meta["backchannel_authentication_endpoint"], meta["token_endpoint"]
    keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=30).json())
    print("ok discovery")

    def authenticate(client, secret, **params):
        # §7.1: client_secret_basic, the parameters form-encoded.
        return requests.post(endpoint, data=params, auth=(client, secret), timeout=30)

    def token(client, secret, auth_req_id):
        return requests.post(token_endpoint, data={"grant_type": GRANT, "auth_req_id": auth_req_id},
                             auth=(client, secret), timeout=30)

    host = {"Authorization": f"Bearer {host_token}"}

    def host_answer(binding_message, verb):
        listed = requests.get(f"{issuer}/v1/me/sign-in-requests", headers=host, timeout=30)
        assert listed.status_code == 200, listed.text
        mine = [r for r in listed.json()["items"] if r.get("bindingMessage") == binding_message]
        assert len(mine) == 1, listed.text
        answered = requests.post(f"{issuer}/v1/me/sign-in-requests/{mine[0]['id']}/{verb}", headers=host, timeout=30)
        assert answered.status_code == 204, answered.text

    def verify(tokens, client):
        claims = jwt.decode(tokens["id_token"], keys)
        claims.validate(now=int(time.time()))
        assert claims["iss"] == issuer, claims
        assert claims["aud"] == client or client in claims["aud"], claims
        digest = hashlib.sha256(tokens["access_token"].encode()).digest()
        at_hash = base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()
        assert claims["at_hash"] == at_hash, claims
        assert claims["exp"] > time.time() and claims["iat"] <= time.time() + 5, claims
        return claims

    # Poll mode.
    message = f"TV {secrets.randbelow(9000) + 1000}"
    print(f"binding {message}")  # the test checks the push to the phone carried it
    started = authenticate(poll_id, poll_secret, scope="openid profile", login_hint=hint, binding_message=message)
    assert started.status_code == 200, started.text
    body = started.json()
    auth_req_id, interval = body["auth_req_id"], body.get("interval", 5)
    assert body["expires_in"] > 0, body
    pending = token(poll_id, poll_secret, auth_req_id)
    assert pending.status_code == 400 and pending.json()["error"] == "authorization_pending", pending.text
    print("ok authorization_pending")
    fast = token(poll_id, poll_secret, auth_req_id)
    assert fast.status_code == 400 and fast.json()["error"] == "slow_down", fast.text
    print("ok slow_down")
    host_answer(message, "approve")
    time.sleep(interval + 5)  # §7.3: slow_down adds 5 seconds to the interval.
    granted = token(poll_id, poll_secret, auth_req_id)
    assert granted.status_code == 200, granted.text
    claims = verify(granted.json(), poll_id)
    print(f"ok poll tokens sub={claims['sub']}")

    # A denial.
    message = f"Shop {secrets.randbelow(9000) + 1000}"
    print(f"binding {message}")  # the test checks the push to the phone carried it
    auth_req_id = authenticate(poll_id, poll_secret, scope="openid", login_hint=hint,
                               binding_message=message).json()["auth_req_id"]
    host_answer(message, "deny")
    denied = token(poll_id, poll_secret, auth_req_id)
    assert denied.status_code == 400 and denied.json()["error"] == "access_denied", denied.text
    print("ok access_denied")

    # Ping mode: a notification endpoint on loopback.
    received = []
    arrived = threading.Event()

    class Notification(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            received.append((self.headers.get("Authorization"), json.loads(self.rfile.read(length))))
            self.send_response(204)
            self.end_headers()
            arrived.set()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", int(ping_port)), Notification)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    notification_token = secrets.token_urlsafe(24)
    message = f"Desk {secrets.randbelow(9000) + 1000}"
    print(f"binding {message}")  # the test checks the push to the phone carried it
    started = authenticate(ping_id, ping_secret, scope="openid", login_hint=hint, binding_message=message,
                           client_notification_token=notification_token)
    assert started.status_code == 200, started.text
    auth_req_id = started.json()["auth_req_id"]
    host_answer(message, "approve")
    assert arrived.wait(10), "no ping arrived"
    bearer, payload = received[0]
    assert bearer == f"Bearer {notification_token}" and payload == {"auth_req_id": auth_req_id}, received
    print("ok ping")
    granted = token(ping_id, ping_secret, auth_req_id)
    assert granted.status_code == 200, granted.text
    verify(granted.json(), ping_id)
    print("ok ping tokens")
    server.shutdown()

    # §13's error table for malformed requests.
    def refused(expected, status, client=poll_id, secret=poll_secret, **params):
        answer = authenticate(client, secret, **params)
        assert answer.status_code == status and answer.json()["error"] == expected, (expected, answer.text)

    refused("invalid_scope", 400, scope="profile", login_hint=hint)
    refused("invalid_request", 400, scope="openid")
    refused("invalid_request", 400, scope="openid", login_hint=hint, id_token_hint="x.y.z")
    refused("invalid_binding_message", 400, scope="openid", login_hint=hint, binding_message="<b>hi</b>")
    refused("invalid_client", 401, secret="not-the-secret", scope="openid", login_hint=hint)
    refused("invalid_request", 400, scope="openid", login_hint=hint, requested_expiry="forever")
    print("ok error table")

    # No answer: expired_token once the request's requested_expiry passes.
    auth_req_id = authenticate(poll_id, poll_secret, scope="openid", login_hint=hint,
                               requested_expiry="10").json()["auth_req_id"]
    time.sleep(11)
    expired = token(poll_id, poll_secret, auth_req_id)
    assert expired.status_code == 400 and expired.json()["error"] == "expired_token", expired.text
    print("ok expired_token")


if __name__ == "__main__":
    main()
