#!/usr/bin/env python3
"""make chaos: a cluster of hosts on this machine (a network namespace each: 3 gateways,
PostgreSQL, a Redis primary and replica, 3 sentinels, nginx as the load balancer with the
shipped Deploy/nginx/gateway.conf, an upstream host with the fake mini-app platform and the
fake FCM, a client), a workload recorded as a history, a nemesis that
injects faults on a schedule, and a checker of named invariants over the history. Exits 1 when
an invariant is violated, 2 when the harness itself fails. Everything it creates (namespaces,
veths, processes, files) is removed on exit, Ctrl-C included.

Usage: scripts/chaos/chaos.py [--scenario NAME ...] [--seconds N] [--seed N] [--report FILE]
Scenarios: kill (kill -9 of each component in turn, restarted after a pause), partition-redis
(each gateway in turn cut off from Redis for 10 s), partition-pg (from PostgreSQL), pause-pg
(every PostgreSQL process SIGSTOPped for 15 s, twice), pause-redis (the Redis primary
SIGSTOPped 15 s, twice: Sentinel fails over), partition-sentinel (a lone sentinel cut off,
then the primary with one sentinel), latency-pg (200 ms ± 50 ms each way and 5 % loss between
the gateways and PostgreSQL), rolling-restart (every gateway stopped gracefully and started
again in turn, under load through the balancer), partition-upstream (each gateway in turn cut
off from the upstream host: the fake mini-app platform and the fake FCM, for 10 s),
pause-gateway (each gateway in turn SIGSTOPped for 12 s, past the push lease).
Each scenario gets a fresh cluster."""
import argparse, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker
from cluster import Cluster
from net import Network, leftovers, run

GATEWAYS = ["gw1", "gw2", "gw3"]
SENTINELS = ["sen1", "sen2", "sen3"]
HOSTS = {"pg": 10, "redis": 20, "redis2": 21, "gw1": 31, "gw2": 32, "gw3": 33, "sen1": 41, "sen2": 42, "sen3": 43,
         "client": 50, "lb": 60, "up": 70}


class Nemesis:
    """Faults on a schedule; every event goes into the history."""

    def __init__(self, cluster, history, rng):
        self.cluster, self.history, self.rng = cluster, history, rng
        self.stop = threading.Event()

    def event(self, what, target):
        self.history.append({"kind": "nemesis", "what": what, "target": target, "start": time.time(),
                             "end": time.time(), "status": None})
        print(f"  {time.strftime('%H:%M:%S')} nemesis: {what} {target}", flush=True)

    def wait(self, seconds):
        return self.stop.wait(seconds)

    def kill(self, seconds):
        """kill -9 of each component in turn (order from the seed), restarted after 3 s; the
        next one after the cluster is ready again and a quiet spell."""
        order = ["gw1", "redis", "pg", "gw2", "gw3", "redis2", "sen1", "lb", "platform", "fcm"]
        self.rng.shuffle(order)
        spell = max(3.0, (seconds - 10) / len(order) - 3)
        self.wait(5)
        for target in order:
            if self.stop.is_set():
                return
            self.event("kill -9", target)
            self.cluster.kill(target)
            self.wait(3)
            self.event("restart", target)
            self.cluster.restart(target)
            if target in GATEWAYS:
                self.cluster.ready(target)
            self.wait(spell)

    def partition_redis(self, seconds):
        """Each gateway in turn cut off from Redis (but not from PostgreSQL) for 10 s."""
        self.cut_off_each("redis", seconds)

    def partition_pg(self, seconds):
        """Each gateway in turn cut off from PostgreSQL (but not from Redis) for 10 s."""
        self.cut_off_each("pg", seconds)

    def partition_upstream(self, seconds):
        """Each gateway in turn cut off from the upstream host (platform and FCM) for 10 s."""
        self.cut_off_each("up", seconds)

    def cut_off_each(self, server, seconds, hold=10):
        def cut(gateway):
            self.event("partition", f"{gateway} | {server}")
            self.cluster.net.partition(gateway, server)

        def heal(gateway):
            self.cluster.net.heal(gateway, server)
            self.event("heal", f"{gateway} | {server}")

        self.each_gateway(seconds, hold, cut, heal)

    def each_gateway(self, seconds, hold, fault, heal):
        """`fault(gateway)` on each gateway in turn (order from the seed), `heal(gateway)`
        `hold` seconds later, the turns spread over the run."""
        order = list(GATEWAYS)
        self.rng.shuffle(order)
        spell = max(3.0, (seconds - 10) / len(order) - hold)
        self.wait(5)
        for gateway in order:
            if self.stop.is_set():
                return
            fault(gateway)
            self.wait(hold)
            heal(gateway)
            self.wait(spell)

    def pause_pg(self, seconds, hold=15):
        """PostgreSQL paused (SIGSTOP: alive, connections open, nothing answered) for 15 s, twice."""
        spell = max(3.0, (seconds - 10) / 2 - hold)
        self.wait(5)
        for _ in range(2):
            if self.stop.is_set():
                return
            self.event("SIGSTOP", "pg")
            self.cluster.host_signal("pg", signal.SIGSTOP)
            self.wait(hold)
            self.cluster.host_signal("pg", signal.SIGCONT)
            self.event("SIGCONT", "pg")
            self.wait(spell)

    def pause_gateway(self, seconds, hold=12):
        """Each gateway in turn paused (SIGSTOP: its sockets open, nothing answered) for 12 s,
        longer than the push lease (10 s): another replica takes its claimed deliveries over."""
        def pause(gateway):
            self.event("SIGSTOP", gateway)
            self.cluster.processes[gateway].signal(signal.SIGSTOP)

        def resume(gateway):
            self.cluster.processes[gateway].signal(signal.SIGCONT)
            self.event("SIGCONT", gateway)

        self.each_gateway(seconds, hold, pause, resume)

    def pause_redis(self, seconds, hold=15):
        """The Redis primary (whichever host it is now) paused 15 s, past Sentinel's 2 s
        down-after: the sentinels promote the replica; the paused one rejoins as a replica."""
        spell = max(3.0, (seconds - 10) / 2 - hold)
        self.wait(5)
        for _ in range(2):
            if self.stop.is_set():
                return
            master = self.cluster.redis_master()
            self.event("SIGSTOP", f"{master} (Redis primary)")
            self.cluster.processes[master].signal(signal.SIGSTOP)
            self.wait(hold)
            self.cluster.processes[master].signal(signal.SIGCONT)
            self.event("SIGCONT", f"{master}, primary now: {self.cluster.redis_master()}")
            self.wait(spell)

    def partition_sentinel(self, seconds):
        """Sentinel minority partitions: (a) one sentinel alone, which must not fail anything
        over; (b) the primary with one sentinel, cut off from the replica, the other two
        sentinels and the gateways: the majority promotes the replica, the gateways follow it,
        and after healing the old primary becomes a replica (one primary, never two)."""
        self.wait(5)
        lone = self.rng.choice(SENTINELS)
        others = [host for host in HOSTS if host not in (lone, "client")]
        before = self.cluster.redis_master()
        self.event("partition", f"{lone} | everyone")
        for host in others:
            self.cluster.net.partition(lone, host)
        self.wait(10)
        for host in others:
            self.cluster.net.heal(lone, host)
        after = self.cluster.redis_master()
        self.event("heal", f"{lone} | everyone; primary {before} -> {after}")
        self.history.append({"kind": "lone_sentinel", "before": before, "after": after, "start": time.time(),
                             "end": time.time(), "status": None})
        self.wait(5)
        if self.stop.is_set():
            return
        master = self.cluster.redis_master()
        sentinel = self.rng.choice(SENTINELS)
        minority = {master, sentinel}
        majority = [host for host in HOSTS if host not in minority and host not in ("client", "pg")]
        self.event("partition", f"{master} (Redis primary) + {sentinel} | {' '.join(majority)}")
        for a in minority:
            for b in majority:
                self.cluster.net.partition(a, b)
        self.wait(20)
        for a in minority:
            for b in majority:
                self.cluster.net.heal(a, b)
        self.event("heal", f"{master} + {sentinel}; primary now: {self.cluster.redis_master()}")
        self.wait(max(3.0, seconds - 50))

    def check_redis_roles(self):
        """After the faults: one primary, named by the sentinels, the other host its replica."""
        deadline = time.time() + 30
        while True:
            master = self.cluster.redis_master()
            roles = {host: self.cluster.redis_role(host) for host in ("redis", "redis2")}
            if master and roles[master] == "master" and list(roles.values()).count("master") == 1 \
                    or time.time() > deadline:
                break
            time.sleep(1)
        self.history.append({"kind": "redis_roles", "master": master, "roles": roles, "start": time.time(),
                             "end": time.time(), "status": None})

    def latency_pg(self, seconds):
        """200 ms ± 50 ms each way and 5 % packet loss between the gateways and PostgreSQL
        (through the delay proxy on PostgreSQL's host and nftables there), for all but the
        first 5 and last 10 seconds."""
        self.wait(5)
        proxy = self.cluster.processes["pgproxy"]
        self.event("slow + 5 % loss", "gateways <-> pg")
        proxy.signal(signal.SIGUSR1)
        self.cluster.net.loss("pg", 6432, 5)
        self.wait(max(5.0, seconds - 15))
        proxy.signal(signal.SIGUSR2)
        self.cluster.net.loss("pg", 6432, None)
        self.event("normal", "gateways <-> pg")

    def rolling_restart(self, seconds):
        """Every gateway in turn stopped gracefully (SIGTERM, as an orchestrator does) and
        started again once the previous one is ready, under load through the balancer; as
        many rounds as the time allows."""
        self.wait(5)
        while not self.stop.is_set():
            for gateway in GATEWAYS:
                if self.stop.is_set():
                    return
                self.event("SIGTERM", gateway)
                self.cluster.stop_gracefully(gateway)
                self.event("start", gateway)
                self.cluster.restart(gateway)
                self.cluster.ready(gateway)
                self.event("ready", gateway)
                self.wait(3)


SCENARIOS = {
    "kill": "kill", "partition-redis": "partition_redis", "partition-pg": "partition_pg", "pause-pg": "pause_pg",
    "pause-redis": "pause_redis", "partition-sentinel": "partition_sentinel", "latency-pg": "latency_pg",
    "rolling-restart": "rolling_restart", "partition-upstream": "partition_upstream", "pause-gateway": "pause_gateway",
}


def watch_exits(cluster, history, stop):
    """Records a process that exits without the nemesis killing it."""
    reported = set()
    while not stop.wait(0.5):
        for name, process in list(cluster.processes.items()):
            popen = process.popen  # read once: a restart may swap it
            if popen and popen.poll() is not None and popen.pid not in process.killed \
                    and (name, popen.pid) not in reported:
                reported.add((name, popen.pid))
                history.append({"kind": "unplanned_exit", "process": name, "code": popen.returncode,
                                "start": time.time(), "end": time.time(), "status": None})
                print(f"  {time.strftime('%H:%M:%S')} {name} exited by itself (code {popen.returncode})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenario", action="append", choices=list(SCENARIOS), help="repeatable; default: all")
    parser.add_argument("--seconds", type=float, default=120, help="workload time per scenario (default 120)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--binaries", default=".build/debug")
    parser.add_argument("--report", help="append the results as JSON lines to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, history)")
    parser.add_argument("--cleanup", action="store_true", help="remove what a killed run left (cx* namespaces) and exit")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("chaos: network namespaces need root")
    for tool in ("redis-server", "redis-cli", "nginx", "curl", "nft"):
        if not shutil.which(tool):
            sys.exit(f"chaos: {tool} is missing (apt-get install -y redis-server redis-sentinel nginx curl nftables)")
    if args.cleanup:
        from net import remove
        for ns in leftovers("cx"):
            remove(ns)
            print(f"removed {ns}")
        return
    for binary in ("gateway", "gatewayctl"):
        if not os.access(f"{args.binaries}/{binary}", os.X_OK):
            sys.exit(f"chaos: no {args.binaries}/{binary}; build first (make chaos does)")
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    scenarios = args.scenario or list(SCENARIOS)
    print(f"chaos: seed {seed} (replay: --seed {seed}), scenarios {' '.join(scenarios)}, {args.seconds:.0f} s each",
          flush=True)
    failed = False
    for scenario in scenarios:
        failed |= run_scenario(scenario, args, seed)
    sys.exit(1 if failed else 0)


def run_scenario(scenario, args, seed):
    prefix = f"cx{os.getpid() % 10000:04d}"
    work = tempfile.mkdtemp(prefix="gateway-chaos-")
    network = Network(prefix, HOSTS)
    cluster = Cluster(network, work, os.path.abspath(args.binaries), GATEWAYS, SENTINELS,
                      database_proxy=scenario == "latency-pg")
    history, stop = [], threading.Event()
    torn_down = [False]
    clients = []  # the workload (its host's sweep kills it too)

    def teardown(*_):
        if torn_down[0]:
            return
        torn_down[0] = True
        stop.set()
        for client in clients:
            try:
                os.killpg(client.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        network.down()  # first: every process in a host, whoever started it, is killed
        cluster.stop_all()
        if args.keep:
            print(f"chaos: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    def interrupted(signum, _):
        raise KeyboardInterrupt  # unwinds whatever waits (Popen.wait holds a lock), then tears down

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    try:
        network.up()
        cluster.start_all()
        watcher = threading.Thread(target=watch_exits, args=(cluster, history, stop), daemon=True)
        watcher.start()
        urls = ",".join(cluster.url(host) for host in GATEWAYS + ["lb"])
        demo_user = f"{work}/shared/demo-user.txt"
        history_file = f"{work}/history.jsonl"
        workload = [*network.exec_prefix("client"), sys.executable, os.path.join(os.path.dirname(__file__), "workload.py"),
                    urls, demo_user, history_file, str(args.seconds)]
        started = time.time()
        client_env = dict(os.environ, CHAOS_GATEWAYCTL=f"{cluster.bin}/gatewayctl",
                          GATEWAY_DATABASE_URL=cluster.database_url, GATEWAY_MASTER_KEY=cluster.master_key,
                          CHAOS_SENDER=f"hello-backend:{cluster.sender_secret}")
        client = subprocess.Popen(workload, start_new_session=True, env=client_env)
        clients.append(client)
        nemesis = Nemesis(cluster, history, random.Random(f"{seed}-{scenario}"))
        faults = threading.Thread(target=getattr(nemesis, SCENARIOS[scenario]), args=(args.seconds,), daemon=True)
        faults.start()
        client.wait()
        nemesis.stop.set()
        faults.join(timeout=60)
        # Heal: every process up, every gateway ready; then the final reads.
        for name, process in cluster.processes.items():
            if not process.alive():
                process.start()
        for host in GATEWAYS + ["lb"]:
            cluster.ready(host)
        nemesis.check_redis_roles()
        stop.set()
        final = subprocess.Popen([*workload, "--final"], start_new_session=True, env=client_env)
        clients.append(final)
        if final.wait() != 0:
            raise RuntimeError("the final checks failed to run")
        history += [json.loads(line) for line in open(history_file)]
        history += [{"kind": "fcm_accepted", "nonce": message.get("data", {}).get("nonce"), "token": message.get("token"),
                     "start": 0.0, "end": 0.0, "status": None} for message in cluster.fcm_accepted()]
        results = checker.check(history, scenario)
        if args.keep:  # the whole history, the nemesis' events included
            with open(f"{work}/history-all.jsonl", "w") as f:
                f.writelines(json.dumps(e) + "\n" for e in sorted(history, key=lambda e: e["start"]))
    except KeyboardInterrupt:
        print("chaos: interrupted; tearing down", file=sys.stderr)
        teardown()
        sys.exit(130)
    except Exception as error:
        print(f"chaos: the harness failed: {error}", file=sys.stderr)
        for name in ("gw1", "pg", "redis"):
            path = f"{work}/{name}.log"
            if os.path.exists(path):
                print(f"--- {name}.log ---\n" + open(path).read()[-2000:], file=sys.stderr)
        teardown()
        sys.exit(2)
    teardown()
    print(f"chaos: scenario {scenario}, {time.time() - started:.0f} s, {len(history)} events")
    violated = False
    for name, summary, ok, figure in results:
        violated |= not ok
        print(f"  {'ok  ' if ok else 'FAIL'} {name}: {figure}")
        if args.report:
            with open(args.report, "a") as report:
                report.write(json.dumps({"scenario": scenario, "seed": seed, "seconds": args.seconds,
                                         "invariant": name, "ok": ok, "figure": figure}) + "\n")
    left = leftovers(prefix)
    if left:
        print(f"chaos: namespaces left behind: {left}", file=sys.stderr)
        violated = True
    return violated


if __name__ == "__main__":
    main()
