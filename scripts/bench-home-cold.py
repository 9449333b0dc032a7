#!/usr/bin/env python3
"""`make bench`: /home with its upstream parts cold. The user consents to app0..app2, so
`recent` lists three mini apps. Then, ROUNDS times per mode: bump the tenant with
gatewayctl (its configVersion is in every cache key, so all of its cached answers become
unreachable), wait until the gateway has reloaded it, and time one /home.
  catalog: the three v1 manifests are fetched first (manifests are immutable per version
           and cached long; the catalog is what expires): featured (the platform listing)
           and recent (each app's latest version) are one upstream round, concurrently.
  all:     nothing is cached: recent needs two dependent rounds (latest version, then its
           manifest).
Prints p50 and max in ms per mode and how many answers were complete with 3 recent apps.
Usage: bench-home-cold.py BASE_URL BEARER_TOKEN GATEWAYCTL TENANT ROUNDS"""
import json, statistics, subprocess, sys, time, urllib.request

base, token, gatewayctl, tenant, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
auth = {"Authorization": f"Bearer {token}"}

def call(method, path, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers={**(headers or {}), **({"Content-Type": "application/json"} if data else {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)

for app in ("app0", "app1", "app2"):
    call("PUT", f"/t/{tenant}/v1/me/miniapps/{app}/permissions",
         {"permissions": [{"name": "rakuten.miniapp.user.USER_NAME", "status": "ALLOWED"}]}, auth)

def measure(mode, rounds):
    latencies, complete = [], 0
    for round in range(rounds):
        name = f"Bench cold {mode} {round}"
        subprocess.run([gatewayctl, "tenant", "update", tenant, "--display-name", name], check=True, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while call("GET", f"/t/{tenant}/v1/host-config").get("displayName") != name:
            if time.monotonic() > deadline: sys.exit("tenant change not picked up in 10 s")
            time.sleep(0.02)
        if mode == "catalog":
            for app in ("app0", "app1", "app2"):
                call("GET", f"/t/{tenant}/v1/miniapps/{app}/versions/v1/manifest", headers=auth)
        start = time.monotonic()
        home = call("GET", f"/t/{tenant}/v1/home", headers=auth)
        latencies.append((time.monotonic() - start) * 1000)
        complete += home.get("complete") is True and len(home.get("recent") or []) == 3
    return f"{mode} cold: p50 {statistics.median(latencies):.1f} ms, max {max(latencies):.1f} ms, {complete}/{rounds} complete"

print("; ".join(measure(mode, rounds) for mode in ("catalog", "all")))
