#!/usr/bin/env python3
"""make chaos: a cluster of hosts on this machine (a network namespace each: 3 gateways,
PostgreSQL, Redis, a client), a workload recorded as a history, a nemesis that injects
faults on a schedule, and a checker of named invariants over the history. Exits 1 when an
invariant is violated, 2 when the harness itself fails. Everything it creates (namespaces,
veths, processes, files) is removed on exit, Ctrl-C included.

Usage: scripts/chaos/chaos.py [--scenario NAME ...] [--seconds N] [--seed N] [--report FILE]
Scenarios: kill (kill -9 of each component in turn, restarted after a pause), partition-redis
(each gateway in turn cut off from Redis for 10 s), partition-pg (from PostgreSQL), pause-pg
(every PostgreSQL process SIGSTOPped for 15 s, twice).
Each scenario gets a fresh cluster."""
import argparse, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker
from cluster import Cluster
from net import Network, leftovers, run

GATEWAYS = ["gw1", "gw2", "gw3"]
HOSTS = {"pg": 10, "redis": 20, "gw1": 31, "gw2": 32, "gw3": 33, "client": 50}


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
        order = ["gw1", "redis", "pg", "gw2", "gw3"]
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

    def cut_off_each(self, server, seconds, hold=10):
        order = list(GATEWAYS)
        self.rng.shuffle(order)
        spell = max(3.0, (seconds - 10) / len(order) - hold)
        self.wait(5)
        for gateway in order:
            if self.stop.is_set():
                return
            self.event("partition", f"{gateway} | {server}")
            self.cluster.net.partition(gateway, server)
            self.wait(hold)
            self.cluster.net.heal(gateway, server)
            self.event("heal", f"{gateway} | {server}")
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

SCENARIOS = {
    "kill": "kill", "partition-redis": "partition_redis", "partition-pg": "partition_pg", "pause-pg": "pause_pg",
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
    cluster = Cluster(network, work, os.path.abspath(args.binaries), GATEWAYS)
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
        urls = ",".join(cluster.url(host) for host in GATEWAYS)
        demo_user = f"{work}/shared/demo-user.txt"
        history_file = f"{work}/history.jsonl"
        workload = [*network.exec_prefix("client"), sys.executable, os.path.join(os.path.dirname(__file__), "workload.py"),
                    urls, demo_user, history_file, str(args.seconds)]
        started = time.time()
        client = subprocess.Popen(workload, start_new_session=True)
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
        for host in GATEWAYS:
            cluster.ready(host)
        stop.set()
        final = subprocess.Popen([*workload, "--final"], start_new_session=True)
        clients.append(final)
        if final.wait() != 0:
            raise RuntimeError("the final checks failed to run")
        history += [json.loads(line) for line in open(history_file)]
        results = checker.check(history)
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
