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
import base64, json, os, re, shutil, subprocess, sys, tempfile, time

import websocket

url, username, password, expected_error, shots = sys.argv[1:6]
redirect = re.search(r"redirect_uri=([^&]+)", url).group(1)
redirect = __import__("urllib.parse").parse.unquote(redirect)
profile = tempfile.mkdtemp(prefix="gw-chromium-")
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                            "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    endpoint = None
    deadline = time.time() + 30
    while time.time() < deadline and endpoint is None:
        line = browser.stderr.readline()
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            endpoint = match.group(1)
    assert endpoint, "chromium did not start"
    port = re.search(r":(\d+)/", endpoint).group(1)
    targets = json.load(__import__("urllib.request").request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
    page_ws = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
    ws = websocket.create_connection(page_ws, timeout=30)
    events = []
    counter = [0]

    def call(method, **params):
        counter[0] += 1
        ws.send(json.dumps({"id": counter[0], "method": method, "params": params}))
        while True:
            message = json.loads(ws.recv())
            if message.get("id") == counter[0]:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            events.append(message)

    def wait_for(predicate, seconds=15):
        end = time.time() + seconds
        while time.time() < end:
            for event in events:
                if predicate(event):
                    events.remove(event)
                    return event
            ws.settimeout(max(0.1, end - time.time()))
            try:
                events.append(json.loads(ws.recv()))
            except websocket.WebSocketTimeoutException:
                break
        raise AssertionError("timed out waiting for an event")

    def evaluate(expression):
        return call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def load(action):
        events.clear()
        action()
        wait_for(lambda e: e.get("method") == "Page.loadEventFired")

    def screenshot(name):
        data = call("Page.captureScreenshot", format="png")["data"]
        with open(os.path.join(shots, name), "wb") as file:
            file.write(base64.b64decode(data))

    def submit(with_password):
        evaluate(f"document.getElementById('username').value = {json.dumps(username)};"
                 f"document.getElementById('password').value = {json.dumps(with_password)};"
                 "document.querySelector('form').requestSubmit()")

    os.makedirs(shots, exist_ok=True)
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
    focused = None
    for _ in range(60):
        focused = evaluate("document.activeElement && document.activeElement.id")
        if focused == "password":
            break
        time.sleep(0.05)
    assert focused == "password", f"the password field has no focus after a refusal (focus on {focused!r})"
    assert evaluate("document.documentElement.scrollWidth") == 360
    print("ok wrong password")

    call("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
    screenshot("login-1280x800.png")
    events.clear()
    submit(password)
    sent = wait_for(lambda e: e.get("method") == "Network.requestWillBeSent" and e["params"]["request"]["url"].startswith(redirect))
    assert "code=" in sent["params"]["request"]["url"], sent
    print("ok signed in")
finally:
    browser.kill()
    shutil.rmtree(profile, ignore_errors=True)
