#!/usr/bin/env python3
"""Drives Debian's headless Chromium through journeys' hosted pages at 360x740, as a person on
a phone who was sent there by an app would.

Usage: chromium_journey.py SIGN_UP_URL SIGN_IN_URL REDIRECT USERNAME PASSWORD SHORT_ERROR SCREENSHOT_DIR
  SIGN_UP_URL  the hostedUrl of a sign-up journey started in Japanese
  SIGN_IN_URL  the hostedUrl of a sign-in journey started in English
  REDIRECT     the journeys' redirect URI (an http loopback URI nothing listens on)
  SHORT_ERROR  the (Japanese) text a too-short password must show beside its field
Steps, one "ok <step>" line each (exit non-zero at the first failure): the register page fits
360 px (no sideways scroll), in Japanese; a short password is refused beside its field, which
takes the focus; the account is created and the browser goes to REDIRECT with a code and the
state; then the new account signs in on the English pages (identify, password) the same way.
"""
import json, sys

from devtools import Browser

sign_up, sign_in, redirect, username, password, short_error, shots = sys.argv[1:8]


def fill(browser, values):
    for name, value in values.items():
        browser.evaluate(f"document.querySelector('[name={name}]').value = {json.dumps(value)}")


def press(browser, action):
    browser.load(lambda: browser.evaluate(f"document.querySelector('button[value={action}]').click()"))


def fits(browser):
    width = browser.evaluate("document.documentElement.scrollWidth")
    assert width == 360, f"the page is {width} px wide in a 360 px viewport"


def redirected(browser):
    sent = browser.wait_for(lambda e: e.get("method") == "Network.requestWillBeSent"
                            and e["params"]["request"]["url"].startswith(redirect))
    target = sent["params"]["request"]["url"]
    assert "code=" in target and "state=" in target, target


with Browser() as browser:
    browser.call("Page.enable")
    browser.call("Network.enable")
    browser.call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)

    browser.load(lambda: browser.call("Page.navigate", url=sign_up))
    fits(browser)
    assert browser.evaluate("document.documentElement.lang") == "ja"
    assert browser.evaluate("document.querySelector('[name=password]').autocomplete") == "new-password"
    browser.screenshot(shots, "journey-register-ja-360x740.png")
    print("ok register page")

    fill(browser, {"username": username, "password": "short"})
    press(browser, "submit")
    beside = browser.evaluate("(document.getElementById('m-password') || {}).textContent || ''")
    assert short_error in beside, f"no message beside the password, got {beside!r}"
    assert browser.evaluate("document.querySelector('[name=username]').value") == username
    focused = browser.focused_id("f-password")
    assert focused == "f-password", f"the refused field has no focus (focus on {focused!r})"
    fits(browser)
    browser.screenshot(shots, "journey-register-refused-ja-360x740.png")
    print("ok refused beside its field")

    fill(browser, {"password": password})
    browser.events.clear()
    browser.evaluate("document.querySelector('button[value=submit]').click()")
    redirected(browser)
    print("ok signed up")

    browser.load(lambda: browser.call("Page.navigate", url=sign_in))
    fits(browser)
    assert browser.evaluate("document.documentElement.lang") == "en"
    browser.screenshot(shots, "journey-identify-en-360x740.png")
    fill(browser, {"identifier": username})
    press(browser, "submit")
    assert browser.evaluate("document.querySelector('[name=password]').type") == "password"
    fits(browser)
    fill(browser, {"password": password})
    browser.events.clear()
    browser.evaluate("document.querySelector('button[value=submit]').click()")
    redirected(browser)
    print("ok signed in")
