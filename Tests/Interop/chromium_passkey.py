#!/usr/bin/env python3
"""Drives Debian's headless Chromium through passkey journeys on the hosted pages at 360x740,
with a WebAuthn virtual authenticator (CTAP2, internal transport, resident keys, user
verification) standing in for the phone's.

Usage: chromium_passkey.py CONFIG_JSON
CONFIG_JSON holds: signUp (the hostedUrl of a sign-up journey started in Japanese), signIn (of
a sign-in journey started in English), both on http://localhost (a secure context whose host
is the tenant's RP ID), redirect (the journeys' redirect URI, nothing listens there), username,
screenshots; passwordSignIn and stepUp (a sign-in journey in English, and one in Japanese
asking acr_values urn:acme:loa:3, of a second tenant whose people have a password and whose
class urn:acme:loa:3 demands a passkey), stepUpUser and stepUpPassword.

Steps, one "ok <step>" line each (exit non-zero at the first failure): the register page asks
no password; the create-passkey page fits 360 px in Japanese and its button makes a passkey
in the authenticator, after which the browser goes to the redirect with a code; on the English
identify page the identifier field offers passkeys (autocomplete "webauthn") and the
conditional request signs in with no username typed. Then, with a new authenticator, on the
second tenant: a password sign-in is offered create-passkey and makes one; the step-up journey
asks the password, then the passkey (its page at 360 px in Japanese), and ends with a code.
"""
import json, sys

from devtools import Browser

config = json.load(open(sys.argv[1]))
redirect, shots = config["redirect"], config["screenshots"]


def fits(browser):
    browser.fits()


def redirected(browser, action):
    browser.redirected(redirect, action, seconds=30)


with Browser() as browser:
    browser.call("Page.enable")
    browser.call("Network.enable")
    browser.call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)
    browser.call("WebAuthn.enable", enableUI=False)
    authenticator = browser.call("WebAuthn.addVirtualAuthenticator", options={
        "protocol": "ctap2", "ctap2Version": "ctap2_1", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    })["authenticatorId"]

    browser.load(lambda: browser.call("Page.navigate", url=config["signUp"]))
    assert browser.evaluate("document.documentElement.lang") == "ja"
    assert browser.evaluate("document.querySelector('[name=password]') === null"), "a password is asked"
    browser.evaluate(f"document.querySelector('[name=username]').value = {json.dumps(config['username'])}")
    browser.load(lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    print("ok register page")

    assert browser.evaluate("document.querySelector('[name=credential]').type") == "hidden"
    assert browser.evaluate("document.querySelector('button[value=skip]') === null"), "skippable without another factor"
    fits(browser)
    browser.screenshot(shots, "passkey-create-ja-360x740.png")
    redirected(browser, lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    credentials = browser.call("WebAuthn.getCredentials", authenticatorId=authenticator)["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"], credentials
    print("ok signed up with a passkey")

    def sign_in():
        browser.call("Page.navigate", url=config["signIn"])
    redirected(browser, sign_in)
    assert browser.evaluate("document.documentElement.lang") in ("en", None)
    credentials = browser.call("WebAuthn.getCredentials", authenticatorId=authenticator)["credentials"]
    assert credentials[0]["signCount"] >= 1, credentials
    print("ok signed in with a passkey")

    # The second tenant, with an authenticator of its own: a password first, then passkeys.
    browser.call("WebAuthn.removeVirtualAuthenticator", authenticatorId=authenticator)
    authenticator = browser.call("WebAuthn.addVirtualAuthenticator", options={
        "protocol": "ctap2", "ctap2Version": "ctap2_1", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
    })["authenticatorId"]

    def with_password(url):
        # No presence while the identify page's conditional request waits: the person types.
        browser.call("WebAuthn.setAutomaticPresenceSimulation", authenticatorId=authenticator, enabled=False)
        browser.load(lambda: browser.call("Page.navigate", url=url))
        assert "webauthn" in browser.evaluate("document.querySelector('[name=identifier]').autocomplete")
        browser.evaluate(f"document.querySelector('[name=identifier]').value = {json.dumps(config['stepUpUser'])}")
        browser.load(lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
        browser.evaluate(f"document.querySelector('[name=password]').value = {json.dumps(config['stepUpPassword'])}")
        browser.load(lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
        browser.call("WebAuthn.setAutomaticPresenceSimulation", authenticatorId=authenticator, enabled=True)

    with_password(config["passwordSignIn"])
    assert browser.evaluate("document.querySelector('button[value=skip]') !== null"), "not skippable"
    redirected(browser, lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    credentials = browser.call("WebAuthn.getCredentials", authenticatorId=authenticator)["credentials"]
    assert len(credentials) == 1, credentials
    print("ok made a passkey after the password")

    with_password(config["stepUp"])
    assert browser.evaluate("document.documentElement.lang") == "ja"
    assert browser.evaluate("document.querySelector('[name=credential]') !== null"), "no passkey asked"
    fits(browser)
    browser.screenshot(shots, "passkey-step-up-ja-360x740.png")
    redirected(browser, lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    print("ok stepped up with the passkey")
