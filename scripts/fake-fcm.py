#!/usr/bin/env python3
"""A fake Firebase Cloud Messaging for trying push without a Firebase project (and for the
README's push walk-through, which `make test` runs against it).

It answers as Google documents: `POST /token` (the service account's `token_uri`) takes an
RFC 7523 JWT bearer grant (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, an
assertion whose `iss` is a service account and whose `aud` is this URL) and answers
`{"access_token", "expires_in", "token_type"}`; `POST /v1/projects/{project}/messages:send`
takes `{"message": {"token", "notification", "data", ...}}` with that bearer token and answers
`{"name": "projects/{project}/messages/{n}"}`, or Google's error model for a token it never
issued (401 UNAUTHENTICATED) and for device tokens starting with `dead-` (404 UNREGISTERED).
`GET /messages` lists what it accepted (for people and tests; not part of FCM).

Usage: scripts/fake-fcm.py PORT [HOST [LOG]]   (HOST default 127.0.0.1; LOG: a file each accepted
message is appended to as a JSON line, so a restarted fake keeps the record; then GATEWAY_PUSH_FCM_URL=http://127.0.0.1:PORT for the
gateway, and `"token_uri": "http://127.0.0.1:PORT/token"` in the service account file)
"""
import base64
import json
import re
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

lock = threading.Lock()
issued = set()
accepted = []
log = None  # the LOG file, when given


def claims_of(jwt):
    try:
        payload = jwt.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except Exception:
        return None


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, document):
        body = json.dumps(document, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, state, code=None):
        error = {"code": status, "message": state.lower(), "status": state}
        if code:
            error["details"] = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}]
        self.answer(status, {"error": error})

    def do_GET(self):
        if self.path == "/messages":
            with lock:
                return self.answer(200, {"messages": accepted})
        self.error(404, "NOT_FOUND")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/token":
            form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
            claims = claims_of(form.get("assertion", ""))
            own_url = f"http://{self.headers.get('Host')}/token"
            if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" or not claims \
                    or "@" not in str(claims.get("iss")) or claims.get("aud") != own_url:
                return self.answer(400, {"error": "invalid_grant", "error_description": "Invalid JWT."})
            token = "ya29.fake-" + uuid.uuid4().hex
            with lock:
                issued.add(token)
            return self.answer(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})
        match = re.fullmatch(r"/v1/projects/([^/]+)/messages:send", self.path)
        if not match:
            return self.error(404, "NOT_FOUND")
        bearer = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        with lock:
            known = bearer in issued
        if not known:
            return self.error(401, "UNAUTHENTICATED")
        if len(body) > 4096:  # FCM refuses a message over 4,096 bytes ("Message is too big")
            return self.error(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")
        try:
            message = json.loads(body)["message"]
            token = message["token"]
        except Exception:
            return self.error(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")
        if token.startswith("dead-"):
            return self.error(404, "NOT_FOUND", "UNREGISTERED")
        with lock:
            accepted.append(message)
            number = len(accepted)
            if log:
                log.write(json.dumps(message, ensure_ascii=False) + "\n")
                log.flush()
        self.answer(200, {"name": f"projects/{match.group(1)}/messages/{number}"})


if __name__ == "__main__":
    log = open(sys.argv[3], "a") if len(sys.argv) > 3 else None
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer((sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
