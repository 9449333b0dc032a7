#!/usr/bin/env python3
"""A fake APNs provider API (HTTP/2 only, over TLS with a throwaway CA) for the gateway's tests.

Follows Apple's documented contract ("Sending notification requests to APNs", "Handling
notification responses from APNs"): `POST /3/device/{token}` with `authorization: bearer <JWT>`
(ES256, header `kid`, claims `iss` = team id and `iat`), `apns-topic`, `apns-push-type`,
`apns-priority`, `apns-expiration`, `apns-collapse-id`; 200 with `apns-id`; errors as
`{"reason": "..."}` (+ `timestamp` on 410): 400 BadDeviceToken / BadCollapseId / BadPriority /
BadExpirationDate / MissingTopic / BadTopic / InvalidPushType, 403 MissingProviderToken /
InvalidProviderToken / ExpiredProviderToken, 405 MethodNotAllowed, 410 Unregistered,
413 PayloadTooLarge, 429 TooManyRequests, 5xx. HTTP/1.1 is refused (ALPN offers h2 only).

Control endpoints for the test (same server): `POST /control/script` {"token": [{"status", "reason",
"retryAfter"}]}, `POST /control/dead` {"tokens": [...]}, `POST /control/expire` (every JWT seen
so far is called expired from now on), `GET /control/received`.

Usage: fake_apns.py DIR TEAM_ID KEY_ID PUBLIC_KEY_PEM_FILE TOPIC
Writes DIR/ca.pem, then prints "listening PORT" on stdout.
"""
import asyncio
import base64
import datetime
import json
import os
import socket
import ssl
import sys
import time
import uuid

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config
from testcerts import make_certificates

directory, team_id, key_id, public_key_file, topic = sys.argv[1:6]
public_key = serialization.load_pem_public_key(open(public_key_file, "rb").read())

state = {"script": {}, "dead": set(), "expired": set(), "seen": set(), "received": [], "jwt_issued": []}


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_jwt(token):
    """None when the provider token is good, else the reason APNs gives."""
    try:
        header_b64, claims_b64, signature_b64 = token.split(".")
        header = json.loads(b64url_decode(header_b64))
        claims = json.loads(b64url_decode(claims_b64))
        signature = b64url_decode(signature_b64)
    except Exception:
        return "InvalidProviderToken"
    if header.get("alg") != "ES256" or header.get("kid") != key_id or claims.get("iss") != team_id:
        return "InvalidProviderToken"
    if len(signature) != 64:
        return "InvalidProviderToken"
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "InvalidProviderToken"
    iat = claims.get("iat")
    if not isinstance(iat, int) or iat > time.time() + 60:
        return "InvalidProviderToken"
    if token in state["expired"] or time.time() - iat > 3600:
        return "ExpiredProviderToken"
    if token not in state["seen"]:
        state["seen"].add(token)
        state["jwt_issued"].append(iat)
    return None


async def read_body(receive, limit=1 << 20):
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > limit or not message.get("more_body"):
            return body


async def answer(send, status, document=None, headers=()):
    payload = b"" if document is None else json.dumps(document).encode()
    all_headers = [(b"apns-id", str(uuid.uuid4()).upper().encode())] + list(headers)
    if payload:
        all_headers.append((b"content-type", b"application/json"))
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": payload})


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    path, method = scope["path"], scope["method"]
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    body = await read_body(receive)
    if path.startswith("/control/"):
        if path == "/control/script":
            for token, answers in json.loads(body).items():
                state["script"].setdefault(token, []).extend(answers)
        elif path == "/control/dead":
            state["dead"].update(json.loads(body)["tokens"])
        elif path == "/control/expire":
            state["expired"].update(state["seen"])
        elif path == "/control/received":
            return await answer(send, 200, {"received": state["received"], "jwtIssuedAt": state["jwt_issued"]})
        return await answer(send, 200, {})
    if scope.get("http_version") != "2":
        return await answer(send, 400, {"reason": "BadRequest: HTTP/2 required"})
    if not path.startswith("/3/device/"):
        return await answer(send, 404, {"reason": "BadPath"})
    if method != "POST":
        return await answer(send, 405, {"reason": "MethodNotAllowed"})
    token = path[len("/3/device/"):]
    authorization = headers.get("authorization", "")
    if not authorization.startswith("bearer "):
        return await answer(send, 403, {"reason": "MissingProviderToken"})
    reason = check_jwt(authorization[len("bearer "):])
    if reason:
        return await answer(send, 403, {"reason": reason})
    if "apns-topic" not in headers:
        return await answer(send, 400, {"reason": "MissingTopic"})
    if headers["apns-topic"] != topic:
        return await answer(send, 400, {"reason": "BadTopic"})
    if headers.get("apns-push-type") not in ("alert", "background", "voip", "complication", "fileprovider", "mdm",
                                             "liveactivity", "location", "pushtotalk"):
        return await answer(send, 400, {"reason": "InvalidPushType"})
    if headers.get("apns-priority", "10") not in ("1", "5", "10"):
        return await answer(send, 400, {"reason": "BadPriority"})
    if not headers.get("apns-expiration", "0").isdigit():
        return await answer(send, 400, {"reason": "BadExpirationDate"})
    if len(headers.get("apns-collapse-id", "").encode()) > 64:
        return await answer(send, 400, {"reason": "BadCollapseId"})
    if len(token) < 64 or any(c not in "0123456789abcdefABCDEF" for c in token):
        return await answer(send, 400, {"reason": "BadDeviceToken"})
    if len(body) > 4096:
        return await answer(send, 413, {"reason": "PayloadTooLarge"})
    try:
        document = json.loads(body)
        alert = document["aps"]["alert"]
    except Exception:
        return await answer(send, 400, {"reason": "PayloadEmpty"})
    if token in state["dead"]:
        return await answer(send, 410, {"reason": "Unregistered", "timestamp": int(time.time() * 1000)})
    scripted = state["script"].get(token)
    if scripted:
        step = scripted.pop(0)
        extra = [(b"retry-after", str(step["retryAfter"]).encode())] if step.get("retryAfter") else []
        return await answer(send, step["status"], {"reason": step["reason"]}, extra)
    state["received"].append({
        "token": token, "title": alert.get("title"), "body": alert.get("body"), "data": document.get("data"),
        "link": document.get("link"), "topic": headers["apns-topic"], "pushType": headers["apns-push-type"],
        "priority": headers.get("apns-priority"), "expiration": headers.get("apns-expiration"),
        "collapseId": headers.get("apns-collapse-id"), "httpVersion": scope.get("http_version"),
    })
    await answer(send, 200)


async def main():
    paths = make_certificates(directory)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.set_inheritable(True)
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    config.certfile = paths["server.pem"]
    config.keyfile = paths["server-key.pem"]
    config.alpn_protocols = ["h2"]
    config.accesslog = None
    config.errorlog = None
    print(f"listening {listener.getsockname()[1]}", flush=True)
    await serve(app, config)


if __name__ == "__main__":
    asyncio.run(main())
