#!/usr/bin/env python3
"""A headless native client written from docs/journeys.md (not from the gateway's code).

Usage: journey_client.py BASE TENANT CLIENT_ID REDIRECT_URI TOTP_USER TOTP_PASSWORD TOTP_SEED

It draws every screen generically from its fields (type, label, required, pattern, value) and
fills them from what "the person" knows, keyed by field name. It knows the screens `identify`,
`password` and `register` only: any other screen name makes it open the journey's `hostedUrl`,
read that page's form and post it as a browser would, and take the code from the redirect.
Steps: sign up, sign in as the new account, a wrong password (422 with a message), and an
account with an authenticator app, whose `totp` screen this client does not know. Prints one
"ok <step>" line per step; exits non-zero on the first failure.
"""
import base64
import hashlib
import hmac
import json
import re
import secrets
import struct
import sys
import time
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import requests

KNOWN = {"identify", "password", "register"}


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def totp(seed, at=None):
    key = base64.b32decode(seed + "=" * (-len(seed) % 8))
    counter = int((at or time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


class Form(HTMLParser):
    """The hosted page's form: its inputs by name and its buttons' actions."""

    def __init__(self):
        super().__init__()
        self.inputs, self.actions, self.title = {}, [], None
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and "name" in a:
            self.inputs[a["name"]] = a
        elif tag == "button" and a.get("name") == "action":
            self.actions.append(a["value"])
        elif tag == "h1":
            self._in_h1 = True

    def handle_data(self, data):
        if self._in_h1:
            self.title = (self.title or "") + data

    def handle_endtag(self, tag):
        if tag == "h1":
            self._in_h1 = False


class Client:
    def __init__(self, base, tenant, client_id, redirect_uri):
        self.issuer = f"{base}/t/{tenant}"
        self.client_id, self.redirect_uri = client_id, redirect_uri

    def start(self, kind, ui_locales="en"):
        self.verifier, challenge = pkce()
        self.state = secrets.token_urlsafe(8)
        answer = requests.post(f"{self.issuer}/v1/journeys", json={
            "kind": kind, "clientId": self.client_id, "codeChallenge": challenge, "codeChallengeMethod": "S256",
            "scope": "openid profile", "nonce": "n-" + self.state, "redirectUri": self.redirect_uri,
            "state": self.state, "uiLocales": ui_locales}, timeout=30)
        assert answer.status_code == 201, (answer.status_code, answer.text)
        assert answer.headers.get("Cache-Control") == "no-store", answer.headers
        return answer.json()

    @staticmethod
    def draw(screen, person):
        """The values of a screen's fields, as a generic renderer would collect them."""
        assert screen["title"] and screen["actions"], screen
        values = {}
        for field in screen["fields"]:
            assert field["type"] in {"text", "email", "tel", "password", "code", "checkbox"}, field
            assert field["label"], field
            value = person.get(field["name"], field.get("value"))
            if value is None:
                assert not field["required"], f"the person cannot fill {field['name']}"
                continue
            if field.get("pattern"):
                assert re.search(field["pattern"], value), (field, value)
            values[field["name"]] = value
        return values

    def run(self, journey, person, expect_refusal=False):
        """Steps until a code: native screens drawn here, anything else on the hosted page."""
        for _ in range(10):
            screen = journey["screen"]
            if screen["name"] not in KNOWN:
                return self.hosted(journey["hostedUrl"], person)
            answer = requests.post(f"{self.issuer}/v1/journeys/{journey['id']}",
                                   json={"action": "submit", "values": self.draw(screen, person)}, timeout=30)
            body = answer.json()
            if answer.status_code == 422:
                assert body["screen"]["messages"] and all(m["text"] for m in body["screen"]["messages"]), body
                if expect_refusal:
                    return body
                raise AssertionError(body["screen"]["messages"])
            assert answer.status_code == 200, (answer.status_code, body)
            if "authorizationCode" in body:
                return self.redeem(body["authorizationCode"], redirect=False)
            journey = body
        raise AssertionError("no end in ten steps")

    def hosted(self, url, person):
        """The hosted page, as the browser tab the docs say to open."""
        tab = requests.Session()
        page = tab.get(url, timeout=30)
        assert page.status_code == 200 and "text/html" in page.headers["Content-Type"], page.status_code
        for _ in range(10):
            form = Form()
            form.feed(page.text)
            assert "csrf_token" in form.inputs and form.actions, page.text
            values = {name: person[name] for name, a in form.inputs.items()
                      if a.get("type") != "hidden" and name in person}
            missing = [name for name, a in form.inputs.items() if "required" in a and name not in values]
            assert not missing, f"the person cannot fill {missing}"
            values.update(action=form.actions[0], csrf_token=form.inputs["csrf_token"]["value"])
            page = tab.post(url, data=values, allow_redirects=False, timeout=30)
            if page.status_code == 303:
                assert page.headers["Location"].startswith(self.redirect_uri + "?"), page.headers["Location"]
                location = urlsplit(page.headers["Location"])
                query = parse_qs(location.query)
                assert query["state"] == [self.state] and query["iss"] == [self.issuer], query
                return self.redeem(query["code"][0], redirect=True)
            assert page.status_code == 200, (page.status_code, page.text[:500])
        raise AssertionError("the hosted page did not end")

    def redeem(self, code, redirect):
        form = {"grant_type": "authorization_code", "code": code, "code_verifier": self.verifier,
                "client_id": self.client_id}
        if redirect:
            form["redirect_uri"] = self.redirect_uri
        answer = requests.post(f"{self.issuer}/oauth2/token", data=form, timeout=30)
        assert answer.status_code == 200, (answer.status_code, answer.text)
        tokens = answer.json()
        claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
        assert claims["nonce"] == "n-" + self.state and claims["iss"] == self.issuer, claims
        return claims


def main():
    base, tenant, client_id, redirect_uri, totp_user, totp_password, seed = sys.argv[1:8]
    client = Client(base, tenant, client_id, redirect_uri)
    name = "py-" + secrets.token_hex(4)
    person = {"username": name, "name": "Py Thon", "password": "a password long enough", "identifier": name}

    signed_up = client.run(client.start("sign-up"), person)
    print("ok sign-up", signed_up["sub"])
    signed_in = client.run(client.start("sign-in"), person)
    assert signed_in["sub"] == signed_up["sub"], (signed_in, signed_up)
    print("ok sign-in")
    refused = client.run(client.start("sign-in", "ja"), dict(person, password="not the password"),
                         expect_refusal=True)
    assert refused["screen"]["name"] == "password", refused
    print("ok wrong-password", refused["screen"]["messages"][0]["code"])

    # The authenticator app's screen is one this client does not know: the hosted page does it.
    if int(time.time()) % 30 > 25:
        time.sleep(6)  # a code that stays good for the whole round trip
    other = {"identifier": totp_user, "password": totp_password, "code": totp(seed)}
    claims = client.run(client.start("sign-in"), other)
    print("ok hosted-totp", claims["sub"])


if __name__ == "__main__":
    main()
