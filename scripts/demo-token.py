#!/usr/bin/env python3
"""Signs a user in (PKCE S256, native JSON login) and prints an access token.
Usage: demo-token.py BASE_URL PASSWORD_FILE [TENANT] [CLIENT_ID] [json]
With `json` last, prints the whole token response (refresh token included).
PASSWORD_FILE holds `username: …` and `password: …` lines, like the demo-user.txt the
gateway writes beside its database in development. Defaults: tenant demo, client demo-app
(redirect http://127.0.0.1/callback)."""
import base64, hashlib, json, os, secrets, sys, urllib.parse, urllib.request

base, password_file = sys.argv[1:3]
tenant = sys.argv[3] if len(sys.argv) > 3 else "demo"
client_id = sys.argv[4] if len(sys.argv) > 4 else "demo-app"
fields = dict(line.split(": ", 1) for line in open(password_file).read().splitlines() if ": " in line)
issuer = f"{base}/t/{tenant}"
verifier = secrets.token_urlsafe(48)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
redirect = "http://127.0.0.1/callback"

def post(url, form, accept="application/json"):
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)

answer = post(f"{issuer}/oauth2/authorize", {
    "response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid profile",
    "state": secrets.token_urlsafe(8), "code_challenge": challenge, "code_challenge_method": "S256",
    "username": fields["username"], "password": fields["password"],
})
code = urllib.parse.parse_qs(urllib.parse.urlparse(answer["redirect_to"]).query)["code"][0]
tokens = post(f"{issuer}/oauth2/token", {
    "grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
    "client_id": client_id, "code_verifier": verifier,
})
print(json.dumps(tokens) if sys.argv[-1] == "json" else tokens["access_token"])
