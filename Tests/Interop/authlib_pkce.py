#!/usr/bin/env python3
"""A third-party OAuth client (authlib's OAuth2Session) against a live gateway.

Usage: authlib_pkce.py BASE_URL TENANT CLIENT_ID REDIRECT_URI USERNAME PASSWORD
Reads discovery, builds a PKCE (S256) authorization URL with authlib, is refused the native
JSON form post (a third party needs the user's consent), signs in on the hosted form and allows
on the consent page, exchanges the code, calls /v1/me, refreshes (rotation) and revokes.
Prints one "ok <step>" line per step; exits non-zero on the first failure.
"""
import base64
import json
import re
import sys
from urllib.parse import urlparse, parse_qs

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt


def main():
    base, tenant, client_id, redirect_uri, username, password = sys.argv[1:7]
    issuer = f"{base}/t/{tenant}"
    meta = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=30).json()
    assert meta["issuer"] == issuer, meta
    assert meta["code_challenge_methods_supported"] == ["S256"], meta
    assert "RS256" in meta["id_token_signing_alg_values_supported"], meta
    jwks = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=30).json())
    print("ok discovery")

    session = OAuth2Session(client_id, redirect_uri=redirect_uri, scope="openid profile",
                            code_challenge_method="S256", token_endpoint_auth_method="none")
    verifier = generate_token(64)
    url, state = session.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce="authlib-nonce")
    params = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
    assert params["code_challenge_method"] == "S256"
    # A third party may not take the password as JSON and skip the user's consent.
    native = requests.post(meta["authorization_endpoint"], data=dict(params, username=username, password=password),
                           headers={"Accept": "application/json"}, timeout=30)
    native.raise_for_status()
    refused = parse_qs(urlparse(native.json()["redirect_to"]).query)
    assert refused["error"] == ["consent_required"] and "code" not in refused, refused
    print("ok consent_required")

    # In a browser (a cookie jar): the sign-in form, then the consent page, then the code.
    browser = requests.Session()
    form = browser.get(url, timeout=30)
    assert form.status_code == 200, form.status_code
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
    consent = browser.post(meta["authorization_endpoint"], allow_redirects=False, timeout=30,
                           data=dict(params, username=username, password=password, csrf_token=csrf))
    assert consent.status_code == 200 and 'name="consent_session"' in consent.text, consent.status_code
    session_value = re.search(r'name="consent_session" value="([^"]+)"', consent.text).group(1)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', consent.text).group(1)
    answer = browser.post(meta["authorization_endpoint"], allow_redirects=False, timeout=30,
                          data=dict(params, csrf_token=csrf, consent_session=session_value, consent="allow"))
    assert answer.status_code == 303, answer.status_code
    redirect_to = answer.headers["Location"]
    query = parse_qs(urlparse(redirect_to).query)
    assert query["iss"] == [issuer], query
    assert query["state"] == [state], query
    print("ok authorize")

    token = session.fetch_token(meta["token_endpoint"], authorization_response=redirect_to, code_verifier=verifier)
    assert token["token_type"] == "Bearer" and "id_token" in token and "refresh_token" in token, token
    print("ok token")

    # The ID token, verified by authlib against the published JWKS: RS256 by default.
    claims = jwt.decode(token["id_token"], jwks, claims_options={
        "iss": {"essential": True, "value": issuer}, "aud": {"essential": True, "value": client_id},
        "nonce": {"essential": True, "value": "authlib-nonce"}})
    claims.validate()
    header = json.loads(base64.urlsafe_b64decode(token["id_token"].split(".")[0] + "=="))
    assert header["alg"] == "RS256", header
    print("ok id_token")

    me = session.get(f"{issuer}/v1/me", timeout=30)
    me.raise_for_status()
    assert me.json()["preferred_username"] == username, me.text
    print("ok api")

    first_refresh = token["refresh_token"]
    refreshed = session.refresh_token(meta["token_endpoint"], refresh_token=first_refresh)
    assert refreshed["refresh_token"] != first_refresh and "id_token" in refreshed, refreshed
    renewed = jwt.decode(refreshed["id_token"], jwks)
    renewed.validate()
    assert renewed["auth_time"] == claims["auth_time"] and "nonce" not in renewed, renewed
    print("ok refresh")

    revoked = session.revoke_token(meta["revocation_endpoint"], token=refreshed["refresh_token"], token_type_hint="refresh_token")
    assert revoked.status_code == 200, revoked.text
    again = requests.post(meta["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"], "client_id": client_id}, timeout=30)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text
    print("ok revoke")


if __name__ == "__main__":
    main()
