#!/usr/bin/env python3
"""A native-style passkey client written from docs/passkeys.md (not from the gateway's code).

Usage: passkey_client.py BASE TENANT CLIENT_ID REDIRECT_URI RP_ID ANDROID_ORIGIN [CIBA_CLIENT CIBA_SECRET]
       passkey_client.py --step-up BASE TENANT CLIENT_ID REDIRECT_URI RP_ID

The authenticator is software, built from the `fido2` package's WebAuthn structures (CBOR,
COSE, authenticator data, attestation `none`) and a P-256 key from `cryptography`: it answers
the `options` of a journey screen's `passkey` field as a phone's platform would, and the
client sends back the credential as `PublicKeyCredential.toJSON()` gives it. The tenant lets
people sign up with a username and a passkey, no password (`journeys.factors: ["passkey"]`),
with RP ID RP_ID and ANDROID_ORIGIN among its origins. Steps: sign up with a passkey as an iOS
app would (origin https://RP_ID); sign in with it as an Android app would (ANDROID_ORIGIN), no
username typed; the same answer again, an answer for another origin and one without user
verification, each refused with a new challenge on the screen. With a CIBA client (docs/ciba.md),
the phone then approves a TV's sign-in request whose `acr_values` ask for a passkey: the plain
approval is refused, the passkey options are fetched, the assertion approves it, the TV's ID
token says `acr` passkey and `amr` `hwk user`, and the same assertion again is refused. Prints
one "ok <step>" line per step; exits non-zero on the first failure.

With --step-up, the tenant's factors are the password and passkeys: the client signs up with a
password and makes the passkey it is offered, then signs in with `acrValues` asking the passkey
class: after the password the `passkey` screen asks for that passkey, and the ID token says
`acr` passkey and `amr` `pwd hwk user`.
"""
import base64
import hashlib
import json
import os
import secrets
import sys

import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.utils import websafe_encode
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData,
                            PublicKeyCredentialCreationOptions, PublicKeyCredentialRequestOptions)

FLAGS = AuthenticatorData.FLAG


class SoftwarePasskey:
    """One discoverable ES256 credential, user verification done (a platform authenticator)."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.rp_id = self.user_handle = None

    def _sign(self, auth_data, client_data):
        return self.key.sign(bytes(auth_data) + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))

    def create(self, options_json, origin, flags=FLAGS.UP | FLAGS.UV):
        options = PublicKeyCredentialCreationOptions.from_dict(options_json)
        assert any(p.alg == ES256.ALGORITHM for p in options.pub_key_cred_params), options
        assert options.authenticator_selection.user_verification == "required", options
        client_data = CollectedClientData.create(type="webauthn.create", challenge=options.challenge, origin=origin)
        credential = AttestedCredentialData.create(
            bytes(16), self.credential_id, ES256.from_cryptography_key(self.key.public_key()))
        auth_data = AuthenticatorData.create(
            hashlib.sha256(options.rp.id.encode()).digest(), flags | FLAGS.AT, self.counter, credential)
        attestation = AttestationObject.create("none", auth_data, {})
        self.rp_id, self.user_handle = options.rp.id, options.user.id
        return {
            "id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(client_data), "attestationObject": websafe_encode(attestation),
                         "transports": ["internal", "hybrid"]},
            "authenticatorAttachment": "platform", "clientExtensionResults": {"credProps": {"rk": True}},
        }

    def get(self, options_json, origin, flags=FLAGS.UP | FLAGS.UV):
        options = PublicKeyCredentialRequestOptions.from_dict(options_json)
        assert options.rp_id == self.rp_id, (options.rp_id, self.rp_id)
        # A discoverable request names no credential; one for a known user names this one.
        assert all(c.id == self.credential_id for c in options.allow_credentials or []), options
        client_data = CollectedClientData.create(type="webauthn.get", challenge=options.challenge, origin=origin)
        self.counter += 1
        auth_data = AuthenticatorData.create(hashlib.sha256(self.rp_id.encode()).digest(), flags, self.counter)
        return {
            "id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id), "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(client_data), "authenticatorData": websafe_encode(auth_data),
                         "signature": websafe_encode(self._sign(auth_data, client_data)),
                         "userHandle": websafe_encode(self.user_handle)},
            "authenticatorAttachment": "platform", "clientExtensionResults": {},
        }


class Client:
    def __init__(self, base, tenant, client_id, redirect_uri):
        self.issuer = f"{base}/t/{tenant}"
        self.client_id, self.redirect_uri = client_id, redirect_uri

    def start(self, kind, **extra):
        self.verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()
        self.nonce = "n-" + secrets.token_urlsafe(8)
        answer = requests.post(f"{self.issuer}/v1/journeys", json={
            "kind": kind, "clientId": self.client_id, "codeChallenge": challenge, "codeChallengeMethod": "S256",
            "scope": "openid profile", "nonce": self.nonce, "redirectUri": self.redirect_uri, **extra}, timeout=30)
        assert answer.status_code == 201, (answer.status_code, answer.text)
        return answer.json()

    def step(self, journey, values, action="submit"):
        answer = requests.post(f"{self.issuer}/v1/journeys/{journey['id']}",
                               json={"action": action, "values": values}, timeout=30)
        return answer.status_code, answer.json()

    def redeem(self, code):
        answer = requests.post(f"{self.issuer}/oauth2/token", data={
            "grant_type": "authorization_code", "code": code, "code_verifier": self.verifier,
            "client_id": self.client_id}, timeout=30)
        assert answer.status_code == 200, (answer.status_code, answer.text)
        claims = id_token_claims(answer.json())
        assert claims["nonce"] == self.nonce and claims["iss"] == self.issuer, claims
        self.access_token = answer.json()["access_token"]
        return claims


def id_token_claims(tokens):
    return json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))


PASSKEY_ACR = "urn:superapp-gateway:acr:passkey"


def ciba_step_up(client, passkey, android_origin, ciba_client, ciba_secret, subject):
    """A TV asks for the user's approval with a passkey; the phone (this client) gives it."""
    def ask():
        answer = requests.post(f"{client.issuer}/oauth2/bc-authorize", auth=(ciba_client, ciba_secret), data={
            "scope": "openid", "login_hint": subject, "binding_message": "TV 4821", "acr_values": PASSKEY_ACR},
            timeout=30)
        assert answer.status_code == 200, (answer.status_code, answer.text)
        return answer.json()["auth_req_id"]

    def phone(method, path, body=None):
        answer = requests.request(method, f"{client.issuer}/v1/me/sign-in-requests{path}", json=body,
                                  headers={"Authorization": f"Bearer {client.access_token}"}, timeout=30)
        return answer.status_code, (answer.json() if answer.content else None)

    request_id = ask()
    status, listed = phone("GET", "")
    item = next(i for i in listed["items"] if i["id"] == request_id)
    assert item["acrValues"] == [PASSKEY_ACR], item
    status, body = phone("POST", f"/{request_id}/approve")
    assert status == 403 and body["code"] == "step_up_required", (status, body)
    status, body = phone("POST", f"/{request_id}/passkey-options")
    assert status == 200 and body["options"]["challenge"], (status, body)
    assert [c["id"] for c in body["options"]["allowCredentials"]] == [websafe_encode(passkey.credential_id)], body
    answer = passkey.get(body["options"], origin=android_origin)
    status, body = phone("POST", f"/{request_id}/approve", {"passkey": answer})
    assert status == 204, (status, body)
    tokens = requests.post(f"{client.issuer}/oauth2/token", auth=(ciba_client, ciba_secret), data={
        "grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": request_id}, timeout=30)
    assert tokens.status_code == 200, (tokens.status_code, tokens.text)
    claims = id_token_claims(tokens.json())
    assert claims["sub"] == subject and claims["acr"] == PASSKEY_ACR and claims["amr"] == ["hwk", "user"], claims
    print("ok ciba-passkey-step-up")

    # The same assertion for the next request: its challenge was spent; refused, nothing approved.
    again = ask()
    phone("POST", f"/{again}/passkey-options")
    status, body = phone("POST", f"/{again}/approve", {"passkey": answer})
    assert status == 403 and body["code"] == "step_up_failed", (status, body)
    status, listed = phone("GET", "")
    assert again in [i["id"] for i in listed["items"]], listed
    print("ok ciba-passkey-replay-refused")


def passkey_field(screen):
    fields = [f for f in screen["fields"] if f["type"] == "passkey"]
    assert len(fields) == 1 and fields[0]["label"] and fields[0]["options"]["challenge"], screen
    return fields[0]


def step_up(base, tenant, client_id, redirect_uri, rp_id):
    client = Client(base, tenant, client_id, redirect_uri)
    passkey = SoftwarePasskey()
    username, password = "lee-" + secrets.token_hex(3), "a passphrase long enough " + secrets.token_hex(4)

    journey = client.start("sign-up")
    status, journey = client.step(journey, {"username": username, "password": password})
    assert status == 200 and journey["screen"]["name"] == "create-passkey", (status, journey)
    assert "skip" in {a["name"] for a in journey["screen"]["actions"]}, "offered, skippable after a password"
    field = passkey_field(journey["screen"])
    status, body = client.step(journey, {field["name"]: passkey.create(field["options"], origin=f"https://{rp_id}")})
    assert status == 200 and "authorizationCode" in body, (status, body)
    client.redeem(body["authorizationCode"])
    print("ok password-sign-up-with-passkey")

    journey = client.start("sign-in", acrValues=PASSKEY_ACR)
    status, journey = client.step(journey, {"identifier": username})
    assert status == 200 and journey["screen"]["name"] == "password", (status, journey)
    status, journey = client.step(journey, {"password": password})
    assert status == 200 and journey["screen"]["name"] == "passkey", (status, journey)
    field = passkey_field(journey["screen"])
    assert field["required"] and [c["id"] for c in field["options"]["allowCredentials"]] == [
        websafe_encode(passkey.credential_id)], field
    status, body = client.step(journey, {field["name"]: passkey.get(field["options"], origin=f"https://{rp_id}")})
    assert status == 200 and "authorizationCode" in body, (status, body)
    claims = client.redeem(body["authorizationCode"])
    assert claims["acr"] == PASSKEY_ACR and claims["amr"] == ["pwd", "hwk", "user"], claims
    print("ok passkey-step-up")


def main():
    if sys.argv[1] == "--step-up":
        step_up(*sys.argv[2:7])
        return
    base, tenant, client_id, redirect_uri, rp_id, android_origin = sys.argv[1:7]
    ciba = sys.argv[7:9]
    client = Client(base, tenant, client_id, redirect_uri)
    passkey = SoftwarePasskey()

    # Sign up: the register screen asks no password; create-passkey carries creation options.
    journey = client.start("sign-up")
    screen = journey["screen"]
    assert screen["name"] == "register" and "password" not in {f["name"] for f in screen["fields"]}, screen
    status, journey = client.step(journey, {"username": "kai-" + secrets.token_hex(3), "name": "Kai"})
    assert status == 200 and journey["screen"]["name"] == "create-passkey", (status, journey)
    assert {a["name"] for a in journey["screen"]["actions"]} == {"submit"}, "no skip without another factor"
    field = passkey_field(journey["screen"])
    assert field["required"] and field["options"]["rp"]["id"] == rp_id, field
    status, body = client.step(journey, {field["name"]: passkey.create(field["options"], origin=f"https://{rp_id}")})
    assert status == 200 and "authorizationCode" in body, (status, body)
    signed_up = client.redeem(body["authorizationCode"])
    assert signed_up["amr"] == ["hwk", "user"], signed_up
    print("ok passkey-sign-up")

    # Sign in: the identify screen's optional passkey field; no username typed.
    journey = client.start("sign-in")
    field = passkey_field(journey["screen"])
    assert not field["required"] and "user" not in field["options"], field
    answer = passkey.get(field["options"], origin=android_origin)
    status, body = client.step(journey, {field["name"]: answer})
    assert status == 200 and "authorizationCode" in body, (status, body)
    signed_in = client.redeem(body["authorizationCode"])
    assert signed_in["sub"] == signed_up["sub"] and signed_in["amr"] == ["hwk", "user"], signed_in
    print("ok passkey-sign-in")

    # Refused, each with a new challenge: a replayed answer, another origin, no user verification.
    journey = client.start("sign-in")
    cases = [("replay", lambda options: answer),
             ("wrong-origin", lambda options: passkey.get(options, origin="https://evil.example")),
             ("no-user-verification", lambda options: passkey.get(options, origin=android_origin, flags=FLAGS.UP))]
    for name, make in cases:
        field = passkey_field(journey["screen"])
        status, body = client.step(journey, {field["name"]: make(field["options"])})
        assert status == 422, (name, status, body)
        assert [m["code"] for m in body["screen"]["messages"]] == ["journey.error.passkey"], body
        assert passkey_field(body["screen"])["options"]["challenge"] != field["options"]["challenge"], name
        journey = body
        print(f"ok {name}-refused")

    if ciba:
        ciba_step_up(client, passkey, android_origin, *ciba, subject=signed_in["sub"])


if __name__ == "__main__":
    main()
