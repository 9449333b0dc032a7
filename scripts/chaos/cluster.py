"""The processes of the chaos cluster, each started inside its host's namespace in a
process group of its own, so a fault (SIGKILL, SIGSTOP) takes the whole process tree."""
import base64, glob, json, os, pwd, re, shutil, signal, subprocess, sys, time
from net import run

PG_PASSWORD = "chaos-password"
HERE = os.path.dirname(os.path.abspath(__file__))
PLATFORM_PORT, FCM_PORT = 8090, 9099
SUBSCRIPTION_KEY = "chaos-subscription-key"
SENDER = "hello-backend"  # the demo tenant's push sender (client credentials, hello's backend)


class Process:
    def __init__(self, name, argv, log, env=None):
        self.name, self.argv, self.log, self.env = name, argv, log, env
        self.popen = None
        self.killed = set()  # pids the nemesis killed

    def start(self):
        out = open(self.log, "ab")
        self.popen = subprocess.Popen(
            self.argv, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True, cwd=os.getcwd())

    def signal(self, sig):
        if self.popen and self.popen.poll() is None or sig == signal.SIGKILL:
            try:
                os.killpg(self.popen.pid, sig)
            except (ProcessLookupError, AttributeError):
                pass

    def kill(self):
        """kill -9 of the whole tree, then wait until it is gone."""
        if self.popen:
            self.killed.add(self.popen.pid)
        self.signal(signal.SIGKILL)
        if self.popen:
            self.popen.wait()
        for _ in range(100):  # children (PostgreSQL's backends) leave with their group
            try:
                os.killpg(self.popen.pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            os.killpg(self.popen.pid, signal.SIGKILL)
            time.sleep(0.05)

    def terminate(self, timeout):
        if not self.popen:
            return
        self.killed.add(self.popen.pid)  # a planned exit, not an unplanned one
        self.signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def alive(self):
        return self.popen is not None and self.popen.poll() is None


class Cluster:
    def __init__(self, network, work, binaries, gateways, sentinels, database_proxy=False):
        """`database_proxy`: the gateways reach PostgreSQL through a delay proxy on its host
        (port 6432), which the nemesis can slow down (this kernel has no `tc netem`)."""
        self.net, self.work, self.bin = network, work, binaries
        self.gateways, self.sentinels = gateways, sentinels
        self.database_proxy = database_proxy
        self.master_key = base64.b64encode(os.urandom(32)).decode()
        self.processes = {}
        os.makedirs(f"{work}/shared", exist_ok=True)

    # PostgreSQL ---------------------------------------------------------------------------

    def postgres(self):
        pgbin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]
        data, sock = f"{self.work}/pg/data", f"{self.work}/pg/socket"
        os.makedirs(sock, exist_ok=True)
        os.makedirs(data, exist_ok=True)
        with open(f"{self.work}/pg/password", "w") as f:
            f.write(PG_PASSWORD + "\n")
        os.chmod(self.work, 0o755)
        uid = pwd.getpwnam("postgres").pw_uid
        for root, dirs, files in os.walk(f"{self.work}/pg"):
            for name in dirs + files:
                os.chown(os.path.join(root, name), uid, -1)
        os.chown(f"{self.work}/pg", uid, -1)
        as_pg = ["runuser", "-u", "postgres", "--"]
        run(*as_pg, f"{pgbin}/initdb", "-D", data, "-U", "gateway", f"--pwfile={self.work}/pg/password",
            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8")
        with open(f"{data}/pg_hba.conf", "a") as f:
            f.write("host all all 10.77.0.0/24 scram-sha-256\n")
        # Durable commits (the default): a killed server must keep what it acknowledged.
        argv = self.net.exec_prefix("pg") + as_pg + [
            f"{pgbin}/postgres", "-D", data, "-p", "5432", "-k", sock,
            "-c", f"listen_addresses={self.net.address('pg')}", "-c", "max_connections=300"]
        self.processes["pg"] = Process("pg", argv, f"{self.work}/pg.log")
        self.processes["pg"].start()
        self.wait_postgres(pgbin, sock)
        run(*as_pg, f"{pgbin}/createdb", "-h", sock, "-p", "5432", "-U", "gateway", "gateway")
        self.pgbin, self.pgsock = pgbin, sock

    def wait_postgres(self, pgbin=None, sock=None):
        pgbin, sock = pgbin or self.pgbin, sock or self.pgsock
        for _ in range(300):
            if run(f"{pgbin}/pg_isready", "-h", sock, "-p", "5432", check=False).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("PostgreSQL did not start; see pg.log")

    @property
    def database_url(self):
        port = 6432 if self.database_proxy else 5432
        return f"postgres://gateway:{PG_PASSWORD}@{self.net.address('pg')}:{port}/gateway?sslmode=disable"

    def delay_proxy(self):
        """The delay proxy on PostgreSQL's host: 6432 -> 5432, slowed on SIGUSR1, normal on SIGUSR2."""
        address = self.net.address("pg")
        argv = self.net.exec_prefix("pg") + [
            sys.executable, os.path.join(os.path.dirname(__file__), "delayproxy.py"),
            f"{address}:6432", f"{address}:5432"]
        self.processes["pgproxy"] = Process("pgproxy", argv, f"{self.work}/pgproxy.log")
        self.processes["pgproxy"].start()

    # Redis: a primary, a replica and three sentinels (Deploy/redis/sentinel.conf's settings) ---

    MASTER = "gateway"

    def redis(self):
        for name, extra in (("redis", []), ("redis2", ["--replicaof", self.net.address("redis"), "6379"])):
            argv = self.net.exec_prefix(name) + [
                "redis-server", "--bind", self.net.address(name), "--port", "6379", "--save", "", "--appendonly", "no",
                "--protected-mode", "no", *extra]
            self.processes[name] = Process(name, argv, f"{self.work}/{name}.log")
            self.processes[name].start()
        for name in self.sentinels:
            os.makedirs(f"{self.work}/{name}", exist_ok=True)
            config = f"{self.work}/{name}/sentinel.conf"
            with open(config, "w") as f:  # sentinels rewrite their file: one each, writable
                f.write(f"bind {self.net.address(name)}\nport 26379\nprotected-mode no\ndir {self.work}/{name}\n"
                        f"sentinel resolve-hostnames no\n"
                        f"sentinel monitor {self.MASTER} {self.net.address('redis')} 6379 2\n"
                        f"sentinel down-after-milliseconds {self.MASTER} 2000\n"
                        f"sentinel failover-timeout {self.MASTER} 10000\n"
                        f"sentinel parallel-syncs {self.MASTER} 1\n")
            argv = self.net.exec_prefix(name) + ["redis-server", config, "--sentinel"]
            self.processes[name] = Process(name, argv, f"{self.work}/{name}.log")
            self.processes[name].start()

    def redis_master(self):
        """The host the sentinels' majority names as master (None if no majority answers)."""
        answers = []
        for name in self.sentinels:
            probe = run(*self.net.exec_prefix(name), "redis-cli", "-h", self.net.address(name), "-p", "26379",
                        "--raw", "SENTINEL", "get-master-addr-by-name", self.MASTER, check=False)
            lines = probe.stdout.split()
            if probe.returncode == 0 and lines:
                answers.append(lines[0])
        for host, octet in self.net.hosts.items():
            if answers.count(self.net.address(host)) >= 2:
                return host
        return None

    def wait_sentinels(self, timeout=60):
        """Until every sentinel knows the replica (healthy) and the two other sentinels: before
        that a failover aborts with no good replica, so faults would test the warm-up instead."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if all(self.sentinel_knows_all(name) for name in self.sentinels):
                return
            time.sleep(0.5)
        raise RuntimeError("the sentinels did not find the replica and each other; see sen*.log")

    def sentinel_knows_all(self, name):
        ask = [*self.net.exec_prefix(name), "redis-cli", "-h", self.net.address(name), "-p", "26379"]
        master = run(*ask, "SENTINEL", "master", self.MASTER, check=False).stdout.split()
        fields = dict(zip(master[::2], master[1::2]))
        return fields.get("num-slaves") == "1" and fields.get("num-other-sentinels") == "2" \
            and "s_down" not in run(*ask, "SENTINEL", "replicas", self.MASTER, check=False).stdout

    def redis_role(self, host):
        probe = run(*self.net.exec_prefix(host), "redis-cli", "-h", self.net.address(host), "-p", "6379", "--raw",
                    "ROLE", check=False)
        return probe.stdout.split()[0] if probe.returncode == 0 and probe.stdout.split() else None

    @property
    def redis_url(self):
        sentinels = ",".join(f"{self.net.address(name)}:26379" for name in self.sentinels)
        return f"redis-sentinel://{sentinels}/{self.MASTER}/0"

    # The load balancer: nginx with the shipped Deploy/nginx/gateway.conf ----------------------

    def balancer(self):
        shipped = open(os.path.join(os.path.dirname(__file__), "../../Deploy/nginx/gateway.conf")).read()
        servers = "".join(f"    server {self.net.address(host)}:8080 max_fails=3 fail_timeout=5s;\n"
                          for host in self.gateways)
        site = re.sub(r"(upstream gateway \{\n)(?:\s*server .*\n)+", lambda m: m.group(1) + servers, shipped)
        site = site.replace("listen 80;", f"listen {self.net.address('lb')}:80;")
        folder = f"{self.work}/lb"
        os.makedirs(folder, exist_ok=True)
        with open(f"{folder}/nginx.conf", "w") as f:
            f.write(f"user root;\nworker_processes 2;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log warn;\n"
                    f"events {{ worker_connections 2048; }}\n"
                    f"http {{\n access_log off;\n client_body_temp_path {folder}/body;\n"
                    f" proxy_temp_path {folder}/proxy;\n{site}\n}}\n")
        argv = self.net.exec_prefix("lb") + ["nginx", "-c", f"{folder}/nginx.conf", "-g", "daemon off;"]
        self.processes["lb"] = Process("lb", argv, f"{self.work}/lb.log")
        self.processes["lb"].start()

    # The upstream host: the mini-app platform and FCM, both fakes that follow the contracts ---

    def upstreams(self):
        """The fake platform (the demo catalog over RAS) and the fake FCM on host `up`; on each
        gateway host a forwarder from loopback to the fake FCM (the gateway calls a plain-http
        push provider only on loopback), so a partition from `up` cuts push too."""
        address = self.net.address("up")
        self.fcm_log = f"{self.work}/fcm-accepted.jsonl"
        for name, argv in (
                ("platform", [os.path.join(HERE, "fakeplatform.py"), address, str(PLATFORM_PORT),
                              os.path.join(HERE, "../../Deploy/demo"), SUBSCRIPTION_KEY]),
                ("fcm", [os.path.join(HERE, "../fake-fcm.py"), str(FCM_PORT), address, self.fcm_log])):
            self.processes[name] = Process(name, self.net.exec_prefix("up") + [sys.executable, *argv],
                                           f"{self.work}/{name}.log")
            self.processes[name].start()
        for host in self.gateways:
            argv = self.net.exec_prefix(host) + [sys.executable, os.path.join(HERE, "delayproxy.py"),
                                                 f"127.0.0.1:{FCM_PORT}", f"{address}:{FCM_PORT}"]
            self.processes[f"fcm-{host}"] = Process(f"fcm-{host}", argv, f"{self.work}/fcm-{host}.log")
            self.processes[f"fcm-{host}"].start()

    def gatewayctl(self, *args, stdin=None):
        """gatewayctl from the client host, on the cluster's database."""
        env = dict(os.environ, GATEWAY_DATABASE_URL=self.database_url, GATEWAY_MASTER_KEY=self.master_key)
        done = subprocess.run([*self.net.exec_prefix("client"), f"{self.bin}/gatewayctl", *args], input=stdin,
                              capture_output=True, text=True, env=env, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"gatewayctl {' '.join(args[:3])} failed: {done.stderr.strip()[:300]}")
        return done.stdout

    def configure_demo(self):
        """The demo tenant on the fake platform (short cache TTLs, so stale copies and refills
        happen within a run), its Firebase service account on the fake FCM, and hello's backend
        as a push sender. Returns the sender's client secret."""
        self.gatewayctl("tenant", "update", "demo", "--platform-url",
                        f"http://{self.net.address('up')}:{PLATFORM_PORT}", "--project-id", "chaos",
                        "--subscription-key", SUBSCRIPTION_KEY, "--catalog-ttl", "2", "--manifest-ttl", "2")
        key = run("openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048").stdout
        account = {"type": "service_account", "project_id": "chaos-app", "private_key_id": "k1", "private_key": key,
                   "token_uri": f"http://127.0.0.1:{FCM_PORT}/token",
                   "client_email": "push@chaos-app.iam.gserviceaccount.com"}
        self.gatewayctl("push", "fcm", "set", "--tenant", "demo", "--service-account-stdin", stdin=json.dumps(account))
        added = self.gatewayctl("client", "add", "--tenant", "demo", "--client-id", SENDER, "--confidential",
                                "--grant-type", "client_credentials", "--miniapp", "hello",
                                "--scope", "notifications:send", "--json")
        return json.loads(added)["clientSecret"]

    def fcm_accepted(self):
        """Every message the fake FCM accepted, over all its lives."""
        if not os.path.exists(self.fcm_log):
            return []
        return [json.loads(line) for line in open(self.fcm_log) if line.strip()]

    # Gateways -----------------------------------------------------------------------------

    def gateway_env(self, host):
        env = dict(os.environ)
        env.update({
            "GATEWAY_HTTP_HOST": self.net.address(host), "GATEWAY_HTTP_PORT": "8080",
            "GATEWAY_DATABASE_URL": self.database_url,
            "GATEWAY_DATABASE_PATH": f"{self.work}/shared/gateway.sqlite",
            "GATEWAY_REDIS_URL": self.redis_url,
            "GATEWAY_MASTER_KEY": self.master_key, "GATEWAY_PUBLIC_BASE_URL": "https://gateway.chaos",
            "GATEWAY_LOG_LEVEL": "warning", "GATEWAY_REPLICA_ID": host,
            "GATEWAY_PUSH_FCM_URL": f"http://127.0.0.1:{FCM_PORT}",  # the forwarder to the fake on `up`
            # A killed replica's claimed deliveries wait for its lease: 10 s instead of 60 s, so
            # a run sees them taken over and delivered.
            "GATEWAY_PUSH_LEASE_MS": "10000",
            "GATEWAY_SHUTDOWN_DRAIN_MS": "5000",  # as Deploy/ ships it
        })
        return env

    def gateway(self, host):
        argv = self.net.exec_prefix(host) + [f"{self.bin}/gateway", "serve"]
        self.processes[host] = Process(host, argv, f"{self.work}/{host}.log", env=self.gateway_env(host))
        self.processes[host].start()

    def url(self, host):
        return f"http://{self.net.address(host)}:{80 if host == 'lb' else 8080}"

    def ready(self, host, timeout=60):
        """Polls /readyz from the client host until 200."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if not self.processes[host].alive():
                raise RuntimeError(f"{host} exited; see {host}.log")
            probe = run(*self.net.exec_prefix("client"), "curl", "-fsS", "-m", "2", f"{self.url(host)}/readyz",
                        check=False)
            if probe.returncode == 0:
                return time.time()
            time.sleep(0.2)
        raise RuntimeError(f"{host} not ready after {timeout} s")

    def start_all(self):
        self.postgres()
        if self.database_proxy:
            self.delay_proxy()
        self.redis()
        self.upstreams()
        # The first gateway migrates and seeds the demo tenant; then the others.
        self.gateway(self.gateways[0])
        self.ready(self.gateways[0], timeout=120)
        self.sender_secret = self.configure_demo()
        for host in self.gateways[1:]:
            self.gateway(host)
        for host in self.gateways[1:]:
            self.ready(host)
        self.balancer()
        self.ready("lb")
        self.wait_sentinels()

    def host_signal(self, host, sig):
        """Signals every process in the host: PostgreSQL's backends each run in a session of
        their own (setsid), so the postmaster's process group is not all of PostgreSQL."""
        for pid in run("ip", "netns", "pids", self.net.ns(host), check=False).stdout.split():
            try:
                os.kill(int(pid), sig)
            except ProcessLookupError:
                pass

    def kill(self, name):
        """kill -9 of a component: for PostgreSQL every process of its host at once (a crash)."""
        process = self.processes[name]
        if process.popen:  # planned before the signal: the exit watcher must not see it first
            process.killed.add(process.popen.pid)
        if name == "pg":
            self.host_signal("pg", signal.SIGKILL)
        self.processes[name].kill()
        if name == "pg":
            for _ in range(100):
                if not run("ip", "netns", "pids", self.net.ns("pg"), check=False).stdout.split():
                    return
                self.host_signal("pg", signal.SIGKILL)
                time.sleep(0.05)

    def restart(self, name):
        self.processes[name].start()
        if name == "pg":
            self.wait_postgres()
            if self.database_proxy:  # it lives on PostgreSQL's host and died with it
                self.processes["pgproxy"].start()

    def stop_gracefully(self, name, timeout=60):
        """SIGTERM (a planned stop, as an orchestrator's), then wait for the exit."""
        self.processes[name].terminate(timeout)

    def stop_all(self):
        self.host_signal("pg", signal.SIGCONT)
        for process in self.processes.values():
            process.signal(signal.SIGCONT)
            process.kill()
