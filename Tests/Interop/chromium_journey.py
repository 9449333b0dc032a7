#!/usr/bin/env python3
"""Drives Debian's headless Chromium through journeys' hosted pages at 360x740, as a person on
a phone who was sent there by an app would.

Usage: chromium_journey.py CONFIG_JSON
CONFIG_JSON holds: signUp, signIn, recovery (the hostedUrls of journeys started in Japanese,
English and English), silent, login, maxAge (authorize URLs of a second client: prompt=none,
prompt=login, max_age=0), redirect (the journeys' redirect URI, an http loopback URI nothing
listens on), username, email, phone, password, newPassword, shortError (the Japanese text a
too-short password shows beside its field), mailDir and smsDir (what the SMTP server on
loopback and the fake Twilio received: the codes are read there), screenshots.

Steps, one "ok <step>" line each (exit non-zero at the first failure): the register page fits
360 px, in Japanese; a short password is refused beside its field, which takes the focus; the
codes sent by e-mail and SMS are typed on the code pages and the browser goes to the redirect
with a code; the new account signs in with its phone number and an SMS code on the English
pages; it recovers its password by e-mail (recover, code, new password); the browser then
signs a second client in silently (prompt=none), while prompt=login and max_age=0 show the form.
"""
import json, sys

from devtools import Browser
from journey_client import Inbox

config = json.load(open(sys.argv[1]))
redirect, shots = config["redirect"], config["screenshots"]
inbox = Inbox(config["mailDir"], config["smsDir"])


def fill(browser, values):
    for name, value in values.items():
        browser.evaluate(f"document.querySelector('[name={name}]').value = {json.dumps(value)}")


def press(browser, action):
    browser.load(lambda: browser.evaluate(f"document.querySelector('button[value={action}]').click()"))


def fits(browser):
    browser.fits()


def redirected(browser, action):
    browser.redirected(redirect, action, seconds=30)


def code_page(browser, shot=None):
    """Types the next code the person received on the code page."""
    assert browser.evaluate("document.querySelector('[name=code]').autocomplete") == "one-time-code"
    fits(browser)
    if shot:
        browser.screenshot(shots, shot)
    fill(browser, {"code": inbox.next_code()})


with Browser() as browser:
    browser.call("Page.enable")
    browser.call("Network.enable")
    browser.call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)

    browser.load(lambda: browser.call("Page.navigate", url=config["signUp"]))
    fits(browser)
    assert browser.evaluate("document.documentElement.lang") == "ja"
    assert browser.evaluate("document.querySelector('[name=password]').autocomplete") == "new-password"
    assert browser.evaluate("document.querySelector('[name=phone]').type") == "tel"
    browser.screenshot(shots, "journey-register-ja-360x740.png")
    print("ok register page")

    person = {"username": config["username"], "email": config["email"], "phone": config["phone"]}
    fill(browser, dict(person, password="short"))
    press(browser, "submit")
    beside = browser.evaluate("(document.getElementById('m-password') || {}).textContent || ''")
    assert config["shortError"] in beside, f"no message beside the password, got {beside!r}"
    assert browser.evaluate("document.querySelector('[name=username]').value") == config["username"]
    focused = browser.focused_id("f-password")
    assert focused == "f-password", f"the refused field has no focus (focus on {focused!r})"
    fits(browser)
    browser.screenshot(shots, "journey-register-refused-ja-360x740.png")
    print("ok refused beside its field")

    fill(browser, {"password": config["password"]})
    press(browser, "submit")
    code_page(browser, "journey-code-email-ja-360x740.png")
    press(browser, "submit")
    code_page(browser)
    redirected(browser, lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    assert inbox.seen == 2
    print("ok signed up")

    browser.load(lambda: browser.call("Page.navigate", url=config["signIn"]))
    fits(browser)
    assert browser.evaluate("document.documentElement.lang") == "en"
    browser.screenshot(shots, "journey-identify-en-360x740.png")
    fill(browser, {"identifier": config["phone"]})
    press(browser, "submit")
    code_page(browser, "journey-code-sms-en-360x740.png")
    redirected(browser, lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    print("ok signed in by SMS")

    browser.load(lambda: browser.call("Page.navigate", url=config["recovery"]))
    fits(browser)
    browser.screenshot(shots, "journey-recover-en-360x740.png")
    fill(browser, {"identifier": config["email"]})
    press(browser, "submit")
    code_page(browser)
    press(browser, "submit")
    assert browser.evaluate("document.querySelector('[name=password]').autocomplete") == "new-password"
    fill(browser, {"password": config["newPassword"]})
    redirected(browser, lambda: browser.evaluate("document.querySelector('button[value=submit]').click()"))
    print("ok recovered")

    redirected(browser, lambda: browser.call("Page.navigate", url=config["silent"]))
    print("ok silent sign-in")
    for name in ("login", "maxAge"):
        browser.load(lambda: browser.call("Page.navigate", url=config[name]))
        assert browser.evaluate("document.querySelector('[name=password]') !== null"), f"{name}: no form"
    print("ok asked again")
