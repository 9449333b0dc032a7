#!/usr/bin/env python3
"""`make bench-cluster` (after scripts/bench-cluster.sh started PostgreSQL and Redis):
1 vs 3 gateway replicas behind nginx on one PostgreSQL and one Redis — cached manifest
req/s and p99 (wrk), code exchanges/s and refreshes/s over HTTP (token-http-bench) — then
the Redis Sentinel failover gap seen by sign-ins through a gateway, then a rolling restart
of 3 replicas under wrk load (errors should be 0).
Usage: bench-cluster.py BIN_DIR WORK_DIR   (environment: GATEWAY_DATABASE_URL,
GATEWAY_REDIS_URL, GATEWAY_MASTER_KEY, GATEWAY_DATABASE_PATH, BENCH_DURATION)"""
import base64, hashlib, json, os, re, secrets, signal, socket, subprocess, sys, time, urllib.parse, urllib.request

bin_dir, work = sys.argv[1:3]
duration = os.environ.get("BENCH_DURATION", "10s")
children = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_signals():
    # The shell that started us may ignore SIGTERM/SIGINT; the gateway must see them.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)


def spawn(arguments, log, env=None):
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=open(log, "ab"),
                               env={**os.environ, **(env or {})}, preexec_fn=default_signals)
    children.append(process)
    return process


def wait_up(url, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except Exception:
            time.sleep(0.1)
    sys.exit(f"not up: {url}")


def start_gateway(port, env=None):
    process = spawn([f"{bin_dir}/gateway", "serve"], f"{work}/gateway-{port}.log",
                    {"GATEWAY_HTTP_PORT": str(port), "GATEWAY_REPLICA_ID": f"bench-{port}", **(env or {})})
    wait_up(f"http://127.0.0.1:{port}/healthz")
    return process


def stop(process, seconds=30):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_nginx(ports, port):
    folder = f"{work}/nginx-{port}"
    os.makedirs(folder)
    servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=1s;" for p in ports)
    conf = f"""worker_processes 2;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
daemon off;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {folder}/body; proxy_temp_path {folder}/proxy; fastcgi_temp_path {folder}/fastcgi;
  uwsgi_temp_path {folder}/uwsgi; scgi_temp_path {folder}/scgi;
  upstream gateway {{
{servers}
    keepalive 64;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://gateway;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 3;
      proxy_connect_timeout 1s;
    }}
  }}
}}
"""
    open(f"{folder}/nginx.conf", "w").write(conf)
    process = spawn(["nginx", "-e", f"{folder}/error.log", "-p", folder, "-c", f"{folder}/nginx.conf"], f"{folder}/stderr.log")
    base = f"http://127.0.0.1:{port}"
    wait_up(f"{base}/healthz")
    return process, base


def wrk(url, header=None, connections=32, length=duration):
    command = ["wrk", "-t2", f"-c{connections}", f"-d{length}", "--latency", url]
    if header:
        command[1:1] = ["-H", header]
    out = subprocess.run(command, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)] if p99 else float("nan")
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    return rps, p99_ms, total, non2xx, errors


def sign_in(base):
    """One PKCE sign-in of the demo user (JSON login + code exchange), as demo-token.py does."""
    fields = dict(l.split(": ", 1) for l in open(f"{os.path.dirname(os.environ['GATEWAY_DATABASE_PATH'])}/demo-user.txt").read().splitlines() if ": " in l)
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()

    def post(path, form):
        request = urllib.request.Request(f"{base}/t/demo{path}", data=urllib.parse.urlencode(form).encode(), headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    answer = post("/oauth2/authorize", {
        "response_type": "code", "client_id": "demo-app", "redirect_uri": "http://127.0.0.1/callback", "scope": "openid",
        "state": "s", "code_challenge": challenge, "code_challenge_method": "S256",
        "username": fields["username"], "password": fields["password"]})
    code = urllib.parse.parse_qs(urllib.parse.urlparse(answer["redirect_to"]).query)["code"][0]
    return post("/oauth2/token", {"grant_type": "authorization_code", "code": code, "redirect_uri": "http://127.0.0.1/callback",
                                  "client_id": "demo-app", "code_verifier": verifier})["access_token"]


def replicas_phase(count):
    # Every replica names the issuer by the address clients use: the load balancer's.
    ports, lb_port = [free_port() for _ in range(count)], free_port()
    env = {"GATEWAY_PUBLIC_BASE_URL": f"http://127.0.0.1:{lb_port}"}
    gateways = [start_gateway(p, env) for p in ports]
    lb, base = start_nginx(ports, lb_port)
    auth = f"Authorization: Bearer {sign_in(base)}"
    manifest = f"{base}/t/demo/v1/miniapps/hello/versions/v1/manifest"
    urllib.request.urlopen(urllib.request.Request(manifest, headers={"Authorization": auth.split(": ", 1)[1]})).read()
    rps, p99, _, non2xx, errors = wrk(manifest, auth, 64)
    tokens = subprocess.run([f"{bin_dir}/token-http-bench", base, os.environ["GATEWAY_DATABASE_URL"], "demo", "demo-app",
                             "http://127.0.0.1/callback", "demo", "3000", "16"],
                            capture_output=True, text=True, env={**os.environ, "REDIS_URL": os.environ["GATEWAY_REDIS_URL"]}).stdout
    stop(lb)
    for gateway in gateways:
        stop(gateway)
    return rps, p99, non2xx + errors, " ".join(line.strip() for line in tokens.splitlines() if "/s" in line)


def failover_gap():
    master_port, replica_port, sentinel_port = free_port(), free_port(), free_port()
    common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", work]
    master = spawn(["redis-server", "--port", str(master_port)] + common, f"{work}/master.log")
    time.sleep(0.3)
    spawn(["redis-server", "--port", str(replica_port), "--replicaof", "127.0.0.1", str(master_port)] + common, f"{work}/replica.log")
    open(f"{work}/sentinel.conf", "w").write(
        f"sentinel monitor mymaster 127.0.0.1 {master_port} 1\nsentinel down-after-milliseconds mymaster 1000\n"
        f"sentinel failover-timeout mymaster 5000\n")
    time.sleep(1)
    spawn(["redis-server", f"{work}/sentinel.conf", "--sentinel", "--port", str(sentinel_port), "--bind", "127.0.0.1"], f"{work}/sentinel.log")
    for _ in range(100):
        out = subprocess.run(["redis-cli", "-p", str(sentinel_port), "sentinel", "replicas", "mymaster"], capture_output=True, text=True).stdout
        if str(replica_port) in out:
            break
        time.sleep(0.1)
    port = free_port()
    gateway = start_gateway(port, {"GATEWAY_REDIS_URL": f"redis-sentinel://127.0.0.1:{sentinel_port}/mymaster/0"})
    base = f"http://127.0.0.1:{port}"
    sign_in(base)
    master.kill()
    killed = time.time()
    failures, recovered = 0, None
    while time.time() - killed < 30:
        try:
            sign_in(base)
            if failures or time.time() - killed > 0.5:
                recovered = time.time()
                break
        except Exception:
            failures += 1
        time.sleep(0.05)
    stop(gateway)
    return (recovered - killed) * 1000 if recovered else None, failures


def rolling_restart():
    ports, lb_port = [free_port() for _ in range(3)], free_port()
    env = {"GATEWAY_SHUTDOWN_DRAIN_MS": "1000", "GATEWAY_SHUTDOWN_TIMEOUT_MS": "10000", "GATEWAY_PUBLIC_BASE_URL": f"http://127.0.0.1:{lb_port}"}
    gateways = [start_gateway(p, env) for p in ports]
    lb, base = start_nginx(ports, lb_port)
    load = subprocess.Popen(["wrk", "-t2", "-c32", "-d20s", "--latency", f"{base}/t/demo/v1/host-config"], stdout=subprocess.PIPE, text=True)
    time.sleep(2)
    started = time.time()
    for index, port in enumerate(ports):
        stop(gateways[index])
        gateways[index] = start_gateway(port, env)
    restart_seconds = time.time() - started
    out = load.communicate()[0]
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = int(m.group(1)) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    errors = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))
    stop(lb)
    for gateway in gateways:
        stop(gateway)
    return total, non2xx, errors, restart_seconds


try:
    print(f"{os.cpu_count()} cores; every replica, nginx, PostgreSQL, Redis and the load generators share them")
    print("\n== 1 vs 3 replicas behind nginx (one PostgreSQL, one Redis) ==")
    results = {}
    for count in (1, 3):
        results[count] = replicas_phase(count)
        rps, p99, errors, tokens = results[count]
        print(f"{count} replica(s): cached manifest {rps:,.0f} req/s, p99 {p99:.2f} ms, errors {errors}; tokens over HTTP: {tokens}")
    print(f"3 vs 1 replicas, cached manifest: {results[3][0] / results[1][0]:.2f}x req/s, p99 {results[3][1] / results[1][1]:.2f}x")

    print("\n== Redis Sentinel failover (kill -9 of the master, down-after-milliseconds 1000) ==")
    gap, failures = failover_gap()
    print(f"sign-ins through the gateway work again {gap:,.0f} ms after the kill ({failures} failed attempts in between, answered 503)"
          if gap is not None else "sign-ins did not recover within 30 s")

    print("\n== Rolling restart of 3 replicas behind nginx under wrk (32 connections, 20 s) ==")
    total, non2xx, errors, seconds = rolling_restart()
    print(f"restarted all 3 in {seconds:.1f} s: {total:,} requests, {non2xx} non-2xx, {errors} socket errors")
finally:
    for child in children:
        if child.poll() is None:
            child.kill()
