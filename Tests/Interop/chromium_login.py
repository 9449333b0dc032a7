#!/usr/bin/env python3
"""Drives Debian's headless Chromium through the gateway's sign-in page over the DevTools
protocol, as a person on a phone would.

Usage: chromium_login.py AUTHORIZE_URL USERNAME PASSWORD EXPECTED_ERROR SCREENSHOT_DIR
  AUTHORIZE_URL  a full /oauth2/authorize URL whose redirect_uri is an http loopback URI
  EXPECTED_ERROR the (localized) text a wrong password must show
Steps, one "ok <step>" line each (exit non-zero at the first failure):
  at 360x740 (mobile) the page does not scroll sideways (scrollWidth == 360), screenshot;
  a wrong password shows EXPECTED_ERROR in a role=alert element;
  at 1280x800, screenshot; the right password leads to the redirect URI with a code.
"""
import json, re, sys, urllib.parse

from devtools import Browser

url, username, password, expected_error, shots = sys.argv[1:6]
redirect = urllib.parse.unquote(re.search(r"redirect_uri=([^&]+)", url).group(1))
with Browser() as browser:
    call, evaluate, load, wait_for, events = browser.call, browser.evaluate, browser.load, browser.wait_for, browser.events

    def screenshot(name):
        browser.screenshot(shots, name)

    def submit(with_password):
        evaluate(f"document.getElementById('username').value = {json.dumps(username)};"
                 f"document.getElementById('password').value = {json.dumps(with_password)};"
                 "document.querySelector('form').requestSubmit()")

    call("Page.enable")
    call("Network.enable")
    call("Emulation.setDeviceMetricsOverride", width=360, height=740, deviceScaleFactor=2, mobile=True)
    load(lambda: call("Page.navigate", url=url))
    width = evaluate("document.documentElement.scrollWidth")
    assert width == 360, f"the page is {width} px wide in a 360 px viewport"
    assert evaluate("document.documentElement.lang") in ("en", "ja")
    screenshot("login-360x740.png")
    print("ok mobile layout")

    # The show-password checkbox runs under the CSP (its script is allowed by hash).
    evaluate("document.getElementById('show-password').click()")
    assert evaluate("document.getElementById('password').type") == "text", "show password did not work"
    evaluate("document.getElementById('show-password').click()")
    assert evaluate("document.getElementById('password').type") == "password"
    print("ok show password")

    load(lambda: submit("not-the-password"))
    alert = evaluate("(document.querySelector('[role=alert]') || {}).textContent || ''")
    assert expected_error in alert, f"no localized error, got {alert!r}"
    # autofocus runs once the page is rendered, which under load can come after the load event.
    focused = browser.focused_id("password")
    assert focused == "password", f"the password field has no focus after a refusal (focus on {focused!r})"
    assert evaluate("document.documentElement.scrollWidth") == 360
    print("ok wrong password")

    call("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
    screenshot("login-1280x800.png")
    browser.events.clear()
    submit(password)
    sent = wait_for(lambda e: e.get("method") == "Network.requestWillBeSent" and e["params"]["request"]["url"].startswith(redirect))
    assert "code=" in sent["params"]["request"]["url"], sent
    print("ok signed in")
