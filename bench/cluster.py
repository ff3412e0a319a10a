"""The fleet on a RabbitMQ cluster (issue 24): two RabbitMQ 3.10 nodes with the MQTT plugin on
loopback (own node names, ports, cookie, epmd, RABBITMQ_* directories; the nodes' subscription
queues mirrored, as Tests/NFCBridgeTests/RabbitMQClusterTests' fixture does), AGENTS agents spread
over both (half list node A first, half node B; every agent lists both, MQTT 3.1.1), the subscriber
on node B. Then node A is killed while its agents have tags on their readers: the failover time.
Standard library only; every process started here is stopped here, by PID.

  python3 bench/cluster.py BIN [--agents N] [--taps N]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from agent import Rig, fleet_rounds, free_port, report, stop_processes  # noqa: E402

SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server"
CTL = "/usr/lib/rabbitmq/bin/rabbitmqctl"


class Cluster:
    def __init__(self):
        if not os.access(SERVER, os.X_OK):
            raise SystemExit(f"RabbitMQ is not installed at {SERVER}: make deps (Debian package rabbitmq-server)")
        self.dir = tempfile.mkdtemp(prefix="nfcbench-rabbitmq-")
        self.home = os.path.join(self.dir, "home")
        os.makedirs(self.home)
        cookie = os.path.join(self.home, ".erlang.cookie")
        open(cookie, "w").write(uuid.uuid4().hex)
        os.chmod(cookie, 0o400)
        open(os.path.join(self.dir, "env.conf"), "w").close()
        self.epmd_port, tag = free_port(), uuid.uuid4().hex[:8]
        self.procs = [subprocess.Popen(["epmd", "-port", str(self.epmd_port)], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)]
        self.nodes = []
        for letter in "ab":
            node = {"name": f"bench-{letter}-{tag}@localhost", "mqtt": free_port(), "amqp": free_port(),
                    "dist": free_port(), "dir": os.path.join(self.dir, letter)}
            self.nodes.append(node)
        t0 = time.time()
        for node in self.nodes:
            self.launch(node)
        for node in self.nodes:
            self.wait_up(node)
        a, b = self.nodes
        self.ctl(b, "stop_app")
        self.ctl(b, "join_cluster", a["name"])
        self.ctl(b, "start_app")
        self.wait_up(b)
        self.ctl(a, "set_policy", "--apply-to", "queues", "mqtt-subscriptions-mirrored", "^mqtt-subscription-",
                 '{"ha-mode":"all"}')
        print(f"  RabbitMQ cluster of 2 nodes up in {time.time() - t0:.0f} s")

    def env(self, node=None):
        e = dict(os.environ, HOME=self.home, ERL_EPMD_PORT=str(self.epmd_port),
                 RABBITMQ_CONF_ENV_FILE=os.path.join(self.dir, "env.conf"))
        if node:
            d = node["dir"]
            e.update(RABBITMQ_NODENAME=node["name"], RABBITMQ_NODE_PORT=str(node["amqp"]),
                     RABBITMQ_DIST_PORT=str(node["dist"]), RABBITMQ_MNESIA_BASE=d + "/mnesia",
                     RABBITMQ_LOG_BASE=d + "/log", RABBITMQ_CONFIG_FILE=d + "/rabbitmq.conf",
                     RABBITMQ_ADVANCED_CONFIG_FILE=d + "/advanced.config",
                     RABBITMQ_ENABLED_PLUGINS_FILE=d + "/enabled_plugins", RABBITMQ_PID_FILE=d + "/pid",
                     RABBITMQ_GENERATED_CONFIG_DIR=d + "/generated", RABBITMQ_PLUGINS_EXPAND_DIR=d + "/expand")
        return e

    def launch(self, node):
        d = node["dir"]
        for sub in ("mnesia", "log", "generated", "expand"):
            os.makedirs(os.path.join(d, sub))
        open(d + "/rabbitmq.conf", "w").write(
            f"listeners.tcp.1 = 127.0.0.1:{node['amqp']}\nmqtt.listeners.tcp.1 = 127.0.0.1:{node['mqtt']}\n"
            "mqtt.allow_anonymous = true\nloopback_users = none\nlog.console = false\nlog.file.level = warning\n")
        open(d + "/enabled_plugins", "w").write("[rabbitmq_mqtt].\n")
        self.procs.append(subprocess.Popen([SERVER], env=self.env(node), stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL))

    def pid(self, node):
        try:
            return int(open(node["dir"] + "/pid").read().strip())
        except (OSError, ValueError):
            return None

    def wait_up(self, node):
        import socket
        deadline = time.time() + 300
        while time.time() < deadline:
            if self.pid(node):
                try:
                    socket.create_connection(("127.0.0.1", node["mqtt"]), timeout=0.5).close()
                    return
                except OSError:
                    pass
            time.sleep(0.2)
        raise RuntimeError(f"{node['name']} did not come up")

    def ctl(self, node, *args):
        out = subprocess.run([CTL, "-n", node["name"], *args], env=self.env(), capture_output=True, text=True,
                             timeout=300)
        if out.returncode != 0:
            raise RuntimeError(f"rabbitmqctl {' '.join(args)}: {out.stdout} {out.stderr}")
        return out.stdout

    def octets(self):
        """Bytes received + sent on the nodes' MQTT connections, broker side (the kernel's per-socket
        counters through `ss`: RabbitMQ 3.10 lists no byte counts for MQTT connections)."""
        ports = " or ".join(f"sport = :{n['mqtt']}" for n in self.nodes)
        out = subprocess.run(["ss", "-tinH", "state", "established", f"( {ports} )"], capture_output=True, text=True).stdout
        total = 0
        for word in out.split():
            key, _, value = word.partition(":")
            if key in ("bytes_sent", "bytes_received") and value.isdigit():
                total += int(value)
        return total

    def kill(self, node):
        pid = self.pid(node)
        if pid:
            os.kill(pid, signal.SIGKILL)

    def close(self):
        for node in self.nodes:
            pid = self.pid(node)
            if pid and alive(pid):
                os.kill(pid, signal.SIGKILL)
        stop_processes(self.procs)
        shutil.rmtree(self.dir, ignore_errors=True)


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--agents", type=int, default=10)
    ap.add_argument("--taps", type=int, default=5)
    ap.add_argument("--interval", type=int, default=250)
    a = ap.parse_args()
    print(f"load: {open('/proc/loadavg').read().split()[:3]}")
    cluster = Cluster()
    rig = None
    try:
        node_a, node_b = (f"mqtt://127.0.0.1:{n['mqtt']}" for n in cluster.nodes)
        # Even agents start on node A, odd ones on node B; each lists both.
        rig = Rig(a.bin, agents=a.agents, interval=a.interval, protocol="3.1.1",
                  brokers=lambda n: [node_a, node_b] if n % 2 == 0 else [node_b, node_a],
                  subscriber_port=cluster.nodes[1]["mqtt"])
        pids = [cluster.pid(n) for n in cluster.nodes]
        print(f"cluster fleet: {a.agents} agents, half on each of 2 RabbitMQ 3.10 nodes (MQTT 3.1.1), "
              f"the subscriber on node B, {a.taps} taps on all of them, interval_ms {a.interval}:")
        lost = fleet_rounds(rig, a.agents, a.taps, pids, cluster.octets)

        # Failover: tags on every agent of node A, then node A killed. The time from the kill (and
        # from each agent's last event through node A) to its first event through node B.
        on_a = list(range(0, a.agents, 2))
        for n in on_a:
            rig.control(n, {"cmd": "place", "id": "t1"})
        got = rig.wait_for(lambda e: e[1].endswith("/event/scanned"), count=len(on_a), timeout=30)
        last_on_a = {int(e[1].split("/")[1][1:]): e[0] for e in got}
        for n in on_a:
            rig.control(n, {"cmd": "remove", "all": True})
        # The removals are made while node A dies: each agent spools its own and sends it through B.
        t_kill = time.time()
        cluster.kill(cluster.nodes[0])
        got = rig.wait_for(lambda e: e[1].endswith("/event/removed"), count=len(on_a), timeout=120)
        first_on_b = {int(e[1].split("/")[1][1:]): e[0] for e in got}
        from_kill = [(first_on_b[n] - t_kill) * 1000 for n in first_on_b]
        gap = [(first_on_b[n] - last_on_a[n]) * 1000 for n in first_on_b if n in last_on_a]
        print(f"failover: node A killed with {len(on_a)} agents on it (tags removed at the kill):")
        report("kill -> first event through node B", from_kill)
        report("last event through node A -> first through node B", gap)
        lost += len(on_a) - len(first_on_b)
        print(f"  agents that never came back within 120 s: {len(on_a) - len(first_on_b)}; events lost in all: {lost}")
    finally:
        if rig:
            rig.close()
        cluster.close()


if __name__ == "__main__":
    main()
