#!/usr/bin/env python3
"""A headless native client written from docs/journeys.md (not from the gateway's code).

Usage: journey_client.py BASE TENANT CLIENT_ID REDIRECT_URI TOTP_USER TOTP_PASSWORD TOTP_SEED MAIL_DIR SMS_DIR

It draws every screen generically from its fields (type, label, required, pattern, value) and
fills them from what "the person" knows, keyed by field name; a `code` field takes the code
from the newest message the person received (MAIL_DIR: what the tenant's SMTP server on
loopback received, SMS_DIR: what the fake Twilio received). It knows the screens `identify`,
`password`, `register`, `code`, `recover` and `new-password` only: any other screen name makes
it open the journey's `hostedUrl`, read that page's form and post it as a browser would, and
take the code from the redirect. The tenant lets people sign up with a username, an e-mail
address and a phone number (both verified), sign in with an SMS code, and recover by e-mail.
Steps: sign up (a code by e-mail, then one by SMS), sign in with the username and password, a
wrong password (422 with a message), sign in with the phone number and an SMS code, recover
the password by e-mail (the sessions from before end; the new password signs in), and an
account with an authenticator app, whose `totp` screen this client does not know. Prints one
"ok <step>" line per step; exits non-zero on the first failure.
"""
import email
import os
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

KNOWN = {"identify", "password", "register", "code", "recover", "new-password"}


class Inbox:
    """What the person receives: the SMTP server's and the SMS provider's records."""

    def __init__(self, mail_dir, sms_dir):
        self.files = [os.path.join(mail_dir, "received.jsonl"), os.path.join(sms_dir, "received.jsonl")]
        self.read = {path: 0 for path in self.files}

    @property
    def seen(self):
        return sum(self.read.values())

    @staticmethod
    def text(record):
        if "data" not in record:
            return record["text"]  # an SMS
        message = email.message_from_string(record["data"])
        return message.get_payload(decode=True).decode("utf-8")

    def next_code(self):
        """The code in the next message to arrive (the courier sends in the background)."""
        deadline = time.time() + 30
        while time.time() < deadline:
            for path in self.files:
                if not os.path.exists(path):
                    continue
                with open(path) as file:
                    records = [json.loads(line) for line in file if line.strip()]
                if len(records) > self.read[path]:
                    record = records[self.read[path]]
                    self.read[path] += 1
                    found = re.search(r"\b[0-9]{6}\b", self.text(record))
                    assert found, self.text(record)
                    return found.group(0)
            time.sleep(0.1)
        raise AssertionError("no message came")


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
            if callable(value):
                value = value()
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
        self.tokens = tokens
        claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
        assert claims["nonce"] == "n-" + self.state and claims["iss"] == self.issuer, claims
        return claims


    def refresh(self, refresh_token):
        """A refresh with `refresh_token`: its status (200, or 400 once its session ended) and
        the rotated refresh token."""
        answer = requests.post(f"{self.issuer}/oauth2/token", data={
            "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id}, timeout=30)
        return answer.status_code, answer.json().get("refresh_token")


def main():
    base, tenant, client_id, redirect_uri, totp_user, totp_password, seed, mail_dir, sms_dir = sys.argv[1:10]
    client = Client(base, tenant, client_id, redirect_uri)
    inbox = Inbox(mail_dir, sms_dir)
    name = "py-" + secrets.token_hex(4)
    phone = "+8190" + "".join(secrets.choice("0123456789") for _ in range(8))
    person = {"username": name, "email": f"{name}@example.com", "phone": phone, "name": "Py Thon",
              "password": "a password long enough", "identifier": name, "code": inbox.next_code}

    signed_up = client.run(client.start("sign-up"), person)
    assert inbox.seen == 2, "one code by e-mail, one by SMS"
    print("ok sign-up", signed_up["sub"])
    sessions = [client.tokens["refresh_token"]]
    signed_in = client.run(client.start("sign-in"), person)
    assert signed_in["sub"] == signed_up["sub"], (signed_in, signed_up)
    print("ok sign-in")
    refused = client.run(client.start("sign-in", "ja"), dict(person, password="not the password"),
                         expect_refusal=True)
    assert refused["screen"]["name"] == "password", refused
    print("ok wrong-password", refused["screen"]["messages"][0]["code"])

    by_sms = client.run(client.start("sign-in"), dict(person, identifier=phone[:3] + " " + phone[3:]))
    assert by_sms["sub"] == signed_up["sub"] and inbox.seen == 3, by_sms
    sessions.append(client.tokens["refresh_token"])
    print("ok sms-sign-in")

    # Both sessions live (each refreshed once: the rotated tokens are fresh, never used).
    refreshed = [client.refresh(token) for token in sessions]
    assert [status for status, _ in refreshed] == [200, 200], refreshed
    sessions = [token for _, token in refreshed]

    new_password = "a new password after recovery"
    recovered = client.run(client.start("recovery"), dict(person, identifier=person["email"], password=new_password))
    assert recovered["sub"] == signed_up["sub"] and inbox.seen == 4, recovered
    ended = [client.refresh(token)[0] for token in sessions]
    assert ended == [400, 400], f"a session from before the recovery lives: {ended}"
    again = client.run(client.start("sign-in"), dict(person, password=new_password))
    assert again["sub"] == signed_up["sub"]
    print("ok recovery")

    # My account, as docs/journeys.md describes it: the identifiers a code proved, the
    # sessions, and a new address that becomes the account's once its mailed code comes back.
    bearer = {"Authorization": "Bearer " + client.tokens["access_token"]}
    account_url = f"{client.issuer}/v1/me/account"
    account = requests.get(account_url, headers=bearer, timeout=30).json()
    assert account["sub"] == signed_up["sub"] and account["emailVerified"] and account["phoneVerified"], account
    assert account["sessions"] and all(session["clientId"] == client_id for session in account["sessions"]), account
    new_address = f"{name}.new@example.com"
    sent = requests.post(account_url + "/identifiers", json={"type": "email", "value": new_address.upper()},
                         headers=bearer, timeout=30)
    assert sent.status_code == 202 and sent.json()["value"] == new_address, sent.text
    proved = requests.post(account_url + "/identifiers/verify",
                           json={"type": "email", "value": new_address, "code": inbox.next_code()},
                           headers=bearer, timeout=30)
    assert proved.status_code == 200, proved.text
    assert proved.json()["email"] == new_address and proved.json()["emailVerified"], proved.text
    print("ok my-account")

    # The authenticator app's screen is one this client does not know: the hosted page does it.
    if int(time.time()) % 30 > 25:
        time.sleep(6)  # a code that stays good for the whole round trip
    other = {"identifier": totp_user, "password": totp_password, "code": totp(seed)}
    claims = client.run(client.start("sign-in"), other)
    print("ok hosted-totp", claims["sub"])


if __name__ == "__main__":
    main()
