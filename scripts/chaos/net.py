"""Hosts on one machine: a network namespace per host, each with a veth into a switch
namespace that holds the bridge (nothing is added to the root namespace). Faults act on
the hosts' own routes and queues: a partition is a pair of blackhole routes, latency and
loss are `tc netem` on a host's interface."""
import subprocess

SUBNET = "10.77.0"


def run(*args, check=True):
    return subprocess.run(list(args), check=check, capture_output=True, text=True)


class Network:
    def __init__(self, prefix, hosts):
        """`hosts`: name -> last octet of its address. Namespace names are `prefix + name`."""
        self.prefix = prefix
        self.hosts = dict(hosts)
        self.switch = prefix + "sw"
        self.created = []

    def ns(self, host):
        return self.prefix + host

    def address(self, host):
        return f"{SUBNET}.{self.hosts[host]}"

    def device(self, host):
        return f"{self.prefix}{host}"[:13] + "a"

    def up(self):
        run("ip", "netns", "add", self.switch)
        self.created.append(self.switch)
        run("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        run("ip", "-n", self.switch, "link", "set", "br0", "up")
        for host in self.hosts:
            ns, inside, outside = self.ns(host), self.device(host), self.device(host)[:-1] + "b"
            run("ip", "netns", "add", ns)
            self.created.append(ns)
            run("ip", "link", "add", inside, "type", "veth", "peer", "name", outside)
            run("ip", "link", "set", inside, "netns", ns)
            run("ip", "link", "set", outside, "netns", self.switch)
            run("ip", "-n", self.switch, "link", "set", outside, "master", "br0", "up")
            run("ip", "-n", ns, "addr", "add", f"{self.address(host)}/24", "dev", inside)
            run("ip", "-n", ns, "link", "set", inside, "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")

    def down(self):
        """Kills every process left in the hosts (whatever started them), then removes them."""
        for ns in reversed(self.created):
            remove(ns)
        self.created = []

    def exec_prefix(self, host):
        return ["ip", "netns", "exec", self.ns(host)]

    def partition(self, a, b):
        """Drops every packet between hosts a and b, both ways (silently: connections hang)."""
        run("ip", "-n", self.ns(a), "route", "add", "blackhole", f"{self.address(b)}/32")
        run("ip", "-n", self.ns(b), "route", "add", "blackhole", f"{self.address(a)}/32")

    def heal(self, a, b):
        run("ip", "-n", self.ns(a), "route", "del", "blackhole", f"{self.address(b)}/32", check=False)
        run("ip", "-n", self.ns(b), "route", "del", "blackhole", f"{self.address(a)}/32", check=False)

    def loss(self, host, port, percent):
        """Drops `percent` % of the TCP packets to and from `port` on the host (nftables'
        `numgen random`: real loss, so TCP retransmits); percent None removes the rule."""
        ns = self.exec_prefix(host)
        run(*ns, "nft", "delete", "table", "inet", "chaos", check=False)
        if percent is None:
            return
        run(*ns, "nft", "add", "table", "inet", "chaos")
        for chain, hook, match in (("in", "input", "dport"), ("out", "output", "sport")):
            run(*ns, "nft", "add", "chain", "inet", "chaos", chain, f"{{ type filter hook {hook} priority 0; }}")
            run(*ns, "nft", "add", "rule", "inet", "chaos", chain, "tcp", match, str(port),
                "numgen", "random", "mod", "100", "<", str(percent), "drop")

    def netem(self, host, spec):
        """`spec` like "delay 200ms 50ms loss 5%" on the host's interface; None removes it."""
        if spec is None:
            run("tc", "-n", self.ns(host), "qdisc", "del", "dev", self.device(host), "root", check=False)
        else:
            run("tc", "-n", self.ns(host), "qdisc", "replace", "dev", self.device(host), "root", "netem", *spec.split())


def remove(ns):
    pids = run("ip", "netns", "pids", ns, check=False).stdout.split()
    for pid in pids:
        run("kill", "-CONT", pid, check=False)
        run("kill", "-KILL", pid, check=False)
    run("ip", "netns", "del", ns, check=False)


def leftovers(prefix):
    """Namespaces a killed run left behind."""
    listed = run("ip", "netns", "list", check=False).stdout.split("\n")
    return [line.split()[0] for line in listed if line.startswith(prefix)]
