"""Debian's headless Chromium driven over the DevTools protocol, for the browser scripts."""
import base64, json, os, re, shutil, subprocess, tempfile, time, urllib.request

import websocket


class Browser:
    """One headless Chromium with one page; `close()` (or `with`) ends it."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="gw-chromium-")
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            endpoint = None
            deadline = time.time() + 30
            while time.time() < deadline and endpoint is None:
                match = re.search(r"DevTools listening on (ws://\S+)", self.process.stderr.readline())
                if match:
                    endpoint = match.group(1)
            assert endpoint, "chromium did not start"
            port = re.search(r":(\d+)/", endpoint).group(1)
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
            page = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            self.ws = websocket.create_connection(page, timeout=30)
        except BaseException:
            self.close()
            raise
        self.events, self.counter = [], 0

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method, **params):
        self.counter += 1
        self.ws.send(json.dumps({"id": self.counter, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.counter:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, predicate, seconds=15):
        end = time.time() + seconds
        while time.time() < end:
            for event in self.events:
                if predicate(event):
                    self.events.remove(event)
                    return event
            self.ws.settimeout(max(0.1, end - time.time()))
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                break
        raise AssertionError("timed out waiting for an event")

    def evaluate(self, expression):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def load(self, action, tries=300):
        """Runs `action` and waits for the page it leads to: a new document, loaded, not an error page.

        A load event alone is not proof: one from the page before (an error page still loading
        after a redirect nothing listens on) can arrive after `action`. The current document is
        marked first; the wait ends when a document without the mark has finished loading."""
        self.evaluate("window.__gatewayLeft = true")
        self.events.clear()
        action()
        self.wait_for(lambda e: e.get("method") == "Page.loadEventFired")
        state = None
        for _ in range(tries):
            state = self.evaluate("[window.__gatewayLeft === true, document.readyState, location.protocol]")
            if state and not state[0] and state[1] == "complete" and state[2] != "chrome-error:":
                return
            time.sleep(0.05)
        raise AssertionError(f"no new page loaded: {state}")

    def fits(self, width=360):
        """Asserts the page is no wider than the viewport (nothing to scroll sideways)."""
        scrolled = self.evaluate("document.documentElement.scrollWidth")
        assert scrolled == width, f"the page is {scrolled} px wide in a {width} px viewport"

    def redirected(self, redirect, action, seconds=15):
        """Runs `action` and waits for the browser to go to `redirect` with a code and a state."""
        self.events.clear()
        action()
        sent = self.wait_for(lambda e: e.get("method") == "Network.requestWillBeSent"
                             and e["params"]["request"]["url"].startswith(redirect), seconds=seconds)
        target = sent["params"]["request"]["url"]
        assert "code=" in target and "state=" in target, target

    def screenshot(self, folder, name):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "wb") as file:
            file.write(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))

    def focused_id(self, expected, tries=60):
        """The focused element's id, polled: autofocus can come after the load event under load."""
        focused = None
        for _ in range(tries):
            focused = self.evaluate("document.activeElement && document.activeElement.id")
            if focused == expected:
                break
            time.sleep(0.05)
        return focused
