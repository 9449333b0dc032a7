#!/usr/bin/env python3
"""Drives the operator console (issue 49) in Debian's headless Chromium through chromium-driver
and Selenium, as operators would, against a live gateway the Swift test started.

Usage: console_browser.py CONFIG.json [SCREENSHOT_DIR]
  CONFIG: admin (the admin listener's origin), public (the tenant's /v1 base), tenant, password
  (every operator's), candidates / stables (user tokens on each side of the 10 % share), mover
  (a user between 10 % and 50 %), recipient (a user with an FCM device). Operators: rel and rel2
  (release managers), vic (viewer), pat (push sender), aud (auditor).
Prints "ok <step>" per step and exits non-zero at the first failure. With
CONSOLE_SCREENSHOTS=all, SCREENSHOT_DIR gets the overview, the release page and the funnel at
1280x800 and 360x740, English and Japanese, light and dark (docs/console.md); otherwise two.
"""
import json, os, re, sys, time, urllib.request

os.environ["SE_AVOID_STATS"] = "true"  # no Selenium Manager, no statistics: nothing leaves the machine
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By

config = json.load(open(sys.argv[1]))
shots = sys.argv[2] if len(sys.argv) > 2 else None
admin, public, tenant = config["admin"], config["public"], config["tenant"]
release = f"{admin}/console/t/{tenant}/miniapps/hello/release"
notifications = f"{admin}/console/t/{tenant}/notifications"
drivers = []
problems = []
checked = 0


def browser(lang="en", dark=False):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", f"--lang={lang}", "--no-first-run"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    drivers.append(driver)
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Accept-Language": lang}})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                           {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})
    return driver


def size(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def fail(message):
    print("FAIL " + message, flush=True)
    raise SystemExit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def wait_until(predicate, seconds=20, what="a condition"):
    """Polls `predicate`; a page replaced while it was read (a form just submitted) counts as
    not yet, not as a failure."""
    end = time.time() + seconds
    while time.time() < end:
        try:
            if predicate():
                return
        except (StaleElementReferenceException, NoSuchElementException):
            pass
        time.sleep(0.25)
    fail(f"timed out waiting for {what}")


AUDIT_SCRIPT = """
const problems = [];
for (const input of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
  const labelled = input.closest('label') || (input.id && document.querySelector('label[for="' + input.id + '"]'))
    || input.getAttribute('aria-label') || input.getAttribute('aria-labelledby');
  if (!labelled) problems.push('input without a label: ' + (input.name || input.outerHTML.slice(0, 80)));
}
for (const svg of document.querySelectorAll('svg')) {
  if (svg.getAttribute('role') !== 'img' || !(svg.querySelector('title') || svg.getAttribute('aria-label')))
    problems.push('a chart without a text alternative');
}
for (const img of document.querySelectorAll('img')) if (!img.hasAttribute('alt')) problems.push('img without alt');
for (const frame of document.querySelectorAll('iframe')) if (!frame.title) problems.push('iframe without a title');
if (!document.documentElement.lang) problems.push('no lang on html');
return problems;
"""


def accessible(driver, page):
    """Every input labelled, every chart and image with words, and no sideways scrolling at 360 px."""
    global checked
    checked += 1
    for problem in driver.execute_script(AUDIT_SCRIPT):
        problems.append(f"{page}: {problem}")
    size(driver, 360, 740)
    time.sleep(0.1)  # let the new width lay out
    # Against the device's 360 px, not innerWidth: a phone's browser zooms out to fit a page
    # that overflows, which widens innerWidth with it.
    width = driver.execute_script("return Math.max(document.body.scrollWidth, document.documentElement.scrollWidth)")
    if width > 360:
        # Name what sticks out, so the fix is findable.
        wide = driver.execute_script(
            "return [...document.querySelectorAll('body *')].filter(e => !e.closest('.scroll table'))"
            ".map(e => [e.getBoundingClientRect().right, "
            "e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + (e.name ? '[' + e.name + ']' : '')])"
            ".filter(x => x[0] > 360).sort((a, b) => b[0] - a[0]).slice(0, 4).map(x => x[1] + ' ' + Math.round(x[0]))")
        problems.append(f"{page}: scrolls sideways at 360 px ({width} px wide: {', '.join(wide)})")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def sign_in(driver, name):
    driver.get(admin + "/console")
    wait_until(lambda: "/admin/oauth2/authorize" in driver.current_url, what="the sign-in page")
    accessible(driver, "sign-in")
    driver.find_element(By.ID, "username").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(config["password"])
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_until(lambda: driver.current_url.rstrip("/").endswith("/console"), what=f"{name}'s overview")


def submit(driver, form):
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


def action_form(driver, field):
    """The release page's form whose hidden action is `field`."""
    for form in driver.find_elements(By.CSS_SELECTOR, "form.action"):
        if form.find_elements(By.CSS_SELECTOR, f"input[name=action][value={field}]"):
            return form
    fail(f"no {field} form on the release page: {text(driver)[:400]}")


def act(driver, action, reason, fields=None):
    """Takes a release action through its confirmation page."""
    form = action_form(driver, action)
    for name, value in (fields or {}).items():
        element = form.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)
    submit(driver, form)
    wait_until(lambda: driver.find_elements(By.NAME, "reason"), what=f"the {action} confirmation")
    accessible(driver, f"confirm {action}")
    driver.find_element(By.NAME, "reason").send_keys(reason)
    submit(driver, driver.find_element(By.CSS_SELECTOR, "form.action"))


def api(method, url, token, body=None):
    request = urllib.request.Request(url, method=method, data=body and json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def served(token):
    return api("GET", f"{public}/miniapps/hello", token)["version"]["versionId"]


def report(token, version, failures):
    events = [{"name": "mini_app_open", "miniAppId": "hello", "versionId": version}]
    events += [{"miniAppId": "hello", "versionId": version, "eventType": "error"}] * failures
    api("POST", f"{public}/analytics", token, {"events": events})


def shoot(driver, url, name, matrix):
    if not shots:
        return
    os.makedirs(shots, exist_ok=True)
    for width, height in matrix:
        size(driver, width, height)
        driver.get(url)
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(shots, f"console-{name}-{width}x{height}.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


try:
    first = browser()
    sign_in(first, "rel")
    expect(f"/console/t/{tenant}/miniapps/hello/release" in first.page_source, "the overview links the rollout")
    accessible(first, "overview")
    print("ok signed in", flush=True)

    # The overview's figures: the public path's requests, counted by the gateway and added to
    # the shared cache within its flush interval (a second in tests).
    for _ in range(5):
        served(config["mover"])

    def figures():
        first.get(admin + "/console")
        cells = [cell.text for cell in first.find_elements(By.CSS_SELECTOR, "tbody tr:first-child td")]
        return len(cells) > 6 and cells[4] not in ("0", "") and cells[6].startswith("≤")

    wait_until(figures, seconds=15, what="the tenant's traffic on the overview")
    print("ok traffic figures", flush=True)

    expect(served(config["mover"]) == "v1", "the mover is served v1 at 10 %")
    first.get(release)
    accessible(first, "release")
    second = browser()
    sign_in(second, "rel2")
    second.get(release)  # the page (and its revision) before the first operator acts
    act(first, "share", "widen after a quiet day", {"percent": "50"})
    wait_until(lambda: "done=share" in first.current_url, what="the share's result")
    expect("50 %" in text(first), "the page shows 50 %")
    print("ok share raised", flush=True)
    wait_until(lambda: served(config["mover"]) == "v2", seconds=15, what="v2 on the public read path")
    print("ok public read path", flush=True)

    # Failures reported through attributable opens: each user first served its version.
    for token in config["candidates"]:
        expect(served(token) == "v2", "a candidate user is served v2")
        report(token, "v2", 1)
    for index, token in enumerate(config["stables"]):
        expect(served(token) == "v1", "a stable user is served v1")
        report(token, "v1", 1 if index == 0 else 0)
    first.get(release + "/chart")
    title = first.find_element(By.CSS_SELECTOR, "svg[role=img] title").get_attribute("textContent")
    match = re.search(r"v2 failed on ([0-9.]+) % of (\d+) opens", title)
    expect(match and float(match.group(1)) > 0 and first.find_elements(By.CSS_SELECTOR, "line.threshold"),
           f"the chart shows v2's failures and the halt line: {title}")
    accessible(first, "chart")
    print("ok chart shows failures", flush=True)
    shoot(first, release, "release", [(1280, 800)])

    # The second operator acts on the revision its page showed: told who changed it and when.
    first.get(release)
    act(first, "pause", "hold while we look")
    wait_until(lambda: "done=pause" in first.current_url, what="the pause's result")
    act(second, "share", "raise further", {"percent": "60"})
    wait_until(lambda: "changed by" in text(second), what="the conflict message")
    expect("operator:rel " in text(second), "the conflict names rel")
    print("ok conflict shown", flush=True)

    first.get(release)
    act(first, "rollback", "v2 fails too often", {"version": "v1"})
    wait_until(lambda: "done=rollback" in first.current_url, what="the rollback's result")
    wait_until(lambda: served(config["mover"]) == "v1", seconds=15, what="v1 again on the public read path")
    print("ok rolled back", flush=True)

    viewer = browser()
    sign_in(viewer, "vic")
    viewer.get(release)
    expect(not viewer.find_elements(By.CSS_SELECTOR, "form.action"), "a viewer sees no action")
    print("ok viewer sees no action", flush=True)
    csrf = viewer.find_element(By.CSS_SELECTOR, "form.who input[name=csrf_token]").get_attribute("value")
    revision = re.search(r"\d+", viewer.find_element(By.XPATH, "//dt[.='Revision']/following-sibling::dd[1]").text)
    viewer.execute_script("""
        const form = document.createElement('form'); form.method = 'post'; form.action = arguments[0];
        for (const [name, value] of Object.entries(arguments[1])) {
          const input = document.createElement('input'); input.type = 'hidden'; input.name = name; input.value = value;
          form.appendChild(input);
        }
        document.body.appendChild(form); form.submit();""",
        release, {"csrf_token": csrf, "revision": revision.group(0) if revision else "1", "action": "pause", "confirm": "yes"})
    wait_until(lambda: viewer.find_elements(By.CSS_SELECTOR, "[role=alert]"), what="the refusal")
    expect("release:" in text(viewer), f"the refusal names the missing permission: {text(viewer)[:300]}")
    print("ok forged post refused", flush=True)

    sender = browser()
    sign_in(sender, "pat")
    sender.get(notifications)
    accessible(sender, "notifications")
    form = sender.find_element(By.CSS_SELECTOR, "form.send")
    for name, value in [("mini_app", "hello"), ("users", config["recipient"]), ("title", "Order shipped"),
                        ("body", "Your order 42 is on its way."), ("locale_2", "ja"), ("title_2", "発送しました"),
                        ("body_2", "ご注文 42 を発送しました。")]:
        form.find_element(By.NAME, name).send_keys(value)
    submit(sender, form)
    wait_until(lambda: sender.find_elements(By.CSS_SELECTOR, "figure.device"), what="the preview")
    expect(len(sender.find_elements(By.CSS_SELECTOR, "figure.device")) == 4, "two locales on two providers")
    expect("発送しました" in text(sender), "the Japanese device shows its title")
    accessible(sender, "send preview")
    submit(sender, sender.find_element(By.CSS_SELECTOR, "form.action"))
    wait_until(lambda: re.search(r"/notifications/[^/?]+$", sender.current_url), what="the notification page")
    page = sender.current_url

    def accepted():
        sender.get(page)
        title = sender.find_element(By.CSS_SELECTOR, "svg[role=img] title").get_attribute("textContent")
        return "1 were accepted by the provider" in title

    wait_until(accepted, seconds=30, what="the funnel to reach accepted")
    accessible(sender, "funnel")
    print("ok funnel accepted", flush=True)

    auditor = browser()
    sign_in(auditor, "aud")
    auditor.get(f"{admin}/console/audit?tenant={tenant}")
    accessible(auditor, "audit")
    rows = [row.text for row in auditor.find_elements(By.CSS_SELECTOR, "tbody tr")]
    for name in ["rel", "vic", "pat"]:
        expect(any(f" {name} " in f" {row} " for row in rows), f"the audit page shows {name}: {rows[:10]} {text(auditor)[:600]}")
    expect(any(" vic " in f" {row} " and "403" in row for row in rows), "the viewer's refusal is on the audit page")
    print("ok audit page", flush=True)

    # The tenant page with its configuration form, as a tenant admin sees it (issue 62: it
    # scrolled sideways at 360 px).
    tenant_admin = browser()
    sign_in(tenant_admin, "adm")
    tenant_admin.get(f"{admin}/console/t/{tenant}")
    expect("csrf_token" in tenant_admin.page_source, "the tenant admin sees the configuration form")
    accessible(tenant_admin, "tenant")
    print("ok tenant page", flush=True)

    expect(not problems, "accessibility: " + "; ".join(problems))
    print(f"ok accessibility ({checked} pages)", flush=True)

    # Screenshots: the docs' full matrix on request, else the overview on a phone and a desktop.
    if os.environ.get("CONSOLE_SCREENSHOTS") == "all":
        for lang in ["en", "ja"]:
            for dark in [False, True]:
                view = browser(lang, dark)
                sign_in(view, "rel")
                suffix = f"{lang}-{'dark' if dark else 'light'}"
                matrix = [(1280, 800), (360, 740)]
                shoot(view, admin + "/console", f"overview-{suffix}", matrix)
                shoot(view, release, f"release-{suffix}", matrix)
                push = browser(lang, dark)
                sign_in(push, "pat")
                shoot(push, page, f"funnel-{suffix}", matrix)
    else:
        shoot(first, admin + "/console", "overview", [(1280, 800), (360, 740)])
finally:
    for driver in drivers:
        try:
            driver.quit()
        except Exception:
            pass
