"""The processes of the chaos cluster, each started inside its host's namespace in a
process group of its own, so a fault (SIGKILL, SIGSTOP) takes the whole process tree."""
import base64, glob, os, pwd, shutil, signal, subprocess, time
from net import run

PG_PASSWORD = "chaos-password"


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

    def alive(self):
        return self.popen is not None and self.popen.poll() is None


class Cluster:
    def __init__(self, network, work, binaries, gateways):
        self.net, self.work, self.bin = network, work, binaries
        self.gateways = gateways
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
        return f"postgres://gateway:{PG_PASSWORD}@{self.net.address('pg')}:5432/gateway?sslmode=disable"

    # Redis --------------------------------------------------------------------------------

    def redis(self):
        argv = self.net.exec_prefix("redis") + [
            "redis-server", "--bind", self.net.address("redis"), "--port", "6379", "--save", "", "--appendonly", "no",
            "--protected-mode", "no"]
        self.processes["redis"] = Process("redis", argv, f"{self.work}/redis.log")
        self.processes["redis"].start()

    # Gateways -----------------------------------------------------------------------------

    def gateway_env(self, host):
        env = dict(os.environ)
        env.update({
            "GATEWAY_HTTP_HOST": self.net.address(host), "GATEWAY_HTTP_PORT": "8080",
            "GATEWAY_DATABASE_URL": self.database_url,
            "GATEWAY_DATABASE_PATH": f"{self.work}/shared/gateway.sqlite",
            "GATEWAY_REDIS_URL": f"redis://{self.net.address('redis')}:6379/0",
            "GATEWAY_MASTER_KEY": self.master_key, "GATEWAY_PUBLIC_BASE_URL": "https://gateway.chaos",
            "GATEWAY_LOG_LEVEL": "warning", "GATEWAY_REPLICA_ID": host, "GATEWAY_PUSH_CONCURRENCY": "0",
        })
        return env

    def gateway(self, host):
        argv = self.net.exec_prefix(host) + [f"{self.bin}/gateway", "serve"]
        self.processes[host] = Process(host, argv, f"{self.work}/{host}.log", env=self.gateway_env(host))
        self.processes[host].start()

    def url(self, host):
        return f"http://{self.net.address(host)}:8080"

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
        self.redis()
        # The first gateway migrates and seeds the demo tenant; then the others.
        self.gateway(self.gateways[0])
        self.ready(self.gateways[0], timeout=120)
        for host in self.gateways[1:]:
            self.gateway(host)
        for host in self.gateways[1:]:
            self.ready(host)

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

    def stop_all(self):
        self.host_signal("pg", signal.SIGCONT)
        for process in self.processes.values():
            process.signal(signal.SIGCONT)
            process.kill()
