"""Agent benchmarks on loopback: a mosquitto on a random port, nfcbridge-sim per agent (line
modelled at 115200 baud), `nfcbridge run` per agent; tags placed and removed through the
simulators' control sockets; events seen by one MQTT subscriber (mosquitto_sub). Standard library
only. Every loop is bounded in count and time; every process started here is stopped here.

  python3 bench/agent.py BIN latency  [--taps N] [--interval MS]
  python3 bench/agent.py BIN churn    [--taps N] [--on MS] [--off MS]
  python3 bench/agent.py BIN absence  [--intervals 100,250,500] [--grace MS]
  python3 bench/agent.py BIN idle     [--seconds S]
  python3 bench/agent.py BIN smaps    [--taps N] [--seconds S]
  python3 bench/agent.py BIN fleet    [--agents N] [--taps N]
  python3 bench/agent.py BIN access   [--taps N]
"""
import argparse
import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from stats import quantile  # noqa: E402

UIDS = ["04A1B2C3D4E5F6", "04B1B2C3D4E5F7", "04C1B2C3D4E5F8", "04D1B2C3D4E5F9"]
CLK = os.sysconf("SC_CLK_TCK")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Rig:
    """One broker, N simulators + agents, one subscriber. With `brokers` (agent number -> its list of
    broker URLs) the brokers are someone else's (bench/cluster.py's RabbitMQ nodes): none is started,
    the subscriber goes to `subscriber_port`, and the agents speak `protocol`."""

    def __init__(self, bin_dir, agents=1, interval=250, presence="", baud=115200, wrap=(), sim_args=(),
                 scenario=None, extra_config=None, brokers=None, subscriber_port=None, protocol=None):
        """`scenario`: the simulator's scenario text instead of the NTAG215s of UIDS; `extra_config`:
        a function of the rig's folder giving more top-level configuration lines (bench/sun.py's keys)."""
        self.bin, self.dir = bin_dir, tempfile.mkdtemp(prefix="nfcbench-agent-")
        self.procs, self.events = [], queue.Queue()
        if brokers is None:
            self.port = free_port()
            conf = os.path.join(self.dir, "mosquitto.conf")
            open(conf, "w").write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\nsys_interval 1\n")
            self.broker = self.start(["mosquitto", "-c", conf], "broker")
            self.wait_port()
            brokers = lambda n: [f"mqtt://127.0.0.1:{self.port}"]  # noqa: E731
        else:
            self.port, self.broker = subscriber_port, None
        self.sub = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-t", "nfc/#", "-v", "-q", "1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.procs.append(self.sub)
        threading.Thread(target=self.read_events, daemon=True).start()
        tags = "".join(f"  - {{id: t{i}, type: ntag215, uid: {uid}, ndef: [{{uri: https://example.com/{i}}}]}}\n"
                       for i, uid in enumerate(UIDS))
        scenario_text = scenario or "tags:\n" + tags + "timeline: []\n"
        scenario = os.path.join(self.dir, "scenario.yaml")
        open(scenario, "w").write(scenario_text)
        self.sims, self.agents = [], []
        for n in range(agents):
            link, sock = os.path.join(self.dir, f"r{n}.tty"), os.path.join(self.dir, f"r{n}.sock")
            sim = self.start([os.path.join(bin_dir, "nfcbridge-sim"), "--link", link, "--control", sock,
                              "--scenario", scenario, "--baud", str(baud)] + list(sim_args), f"sim{n}", stdout=True)
            deadline = time.time() + 30
            while "ready" not in (sim.stdout.readline() or "") and time.time() < deadline:
                pass
            self.sims.append(sock)
            config = os.path.join(self.dir, f"a{n}.yaml")
            urls = brokers(n)
            open(config, "w").write(
                f"id: a{n}\nreader:\n  device: \"pn532_uart:{link}\"\n  polling: {{interval_ms: {interval}}}\n"
                f"mqtt:\n  url: {urls[0] if len(urls) == 1 else '[' + ', '.join(urls) + ']'}\n"
                + (f"  protocol: \"{protocol}\"\n" if protocol else "")
                + (f"presence: {presence}\n" if presence else "")
                + f"state_dir: {os.path.join(self.dir, f's{n}')}\nlog: {{level: warning}}\n"
                + (extra_config(self.dir) if extra_config else ""))
            self.agents.append(self.start(list(wrap) + [os.path.join(bin_dir, "nfcbridge"), "run", "--config", config], f"agent{n}"))
        # Ready when every agent's reader state says ok.
        self.wait_for(lambda e: e[1].endswith("/reader") and '"ok"' in e[2], count=agents, timeout=60)

    def start(self, argv, name, stdout=False):
        env = dict(os.environ, LIBNFC_AUTO_SCAN="false")
        p = subprocess.Popen(argv, stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
                             stderr=open(os.path.join(self.dir, name + ".err"), "w"), text=True, env=env)
        self.procs.append(p)
        return p

    def wait_port(self):
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def read_events(self):
        for line in self.sub.stdout:
            now = time.time()
            topic, _, payload = line.rstrip("\n").partition(" ")
            self.events.put((now, topic, payload))

    def wait_for(self, match, count=1, timeout=10.0):
        """The matching events (time, topic, payload), in order; fewer when `timeout` passes."""
        found, deadline = [], time.time() + timeout
        while len(found) < count:
            left = deadline - time.time()
            if left <= 0:
                break
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                break
            if match(event):
                found.append(event)
        return found

    def control(self, n, request):
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.sims[n])
        s.sendall(json.dumps(request).encode() + b"\n")
        reply = s.makefile().readline()
        s.close()
        return json.loads(reply)

    def commands(self, n):
        return sum(self.control(n, {"cmd": "list"}).get("commands", {}).values())

    def close(self):
        stop_processes(self.procs)
        shutil.rmtree(self.dir, ignore_errors=True)


def stop_processes(procs):
    """SIGTERM to every process of `procs` still running, last started first; SIGKILL after 10 s."""
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in reversed(procs):
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def event_of(kind, uid, agent=None):
    def match(e):
        return e[1].endswith("/event/" + kind) and uid in e[2] and (agent is None or e[1].split("/")[1] == agent)
    return match


def latency(rig, taps, on_ms):
    scan, removal, lost = [], [], 0
    rng = random.Random(13)
    for i in range(taps):
        uid_index = i % len(UIDS)
        # A random pause first: the previous `removed` came right after a poll, so placing at once
        # would always hit the same phase of the poll cycle.
        time.sleep(rng.uniform(0, 0.5))
        t0 = time.time()
        rig.control(0, {"cmd": "place", "id": f"t{uid_index}"})
        got = rig.wait_for(event_of("scanned", UIDS[uid_index]), timeout=10)
        if got:
            scan.append((got[0][0] - t0) * 1000)
        else:
            lost += 1
        time.sleep(on_ms / 1000)
        t1 = time.time()
        rig.control(0, {"cmd": "remove", "all": True})
        got = rig.wait_for(event_of("removed", UIDS[uid_index]), timeout=10)
        if got:
            removal.append((got[0][0] - t1) * 1000)
        else:
            lost += 1
    return scan, removal, lost


def access_taps(rig, taps, uid_index=0):
    """Place → `scanned` latency (ms) and PN532 commands per tap for `taps` taps of tag t<uid_index>,
    each removed as soon as its `scanned` arrives and its `removed` awaited."""
    scan, commands, lost = [], [], 0
    rng = random.Random(21)
    for _ in range(taps):
        time.sleep(rng.uniform(0, 0.3))
        before = rig.commands(0)
        t0 = time.time()
        rig.control(0, {"cmd": "place", "id": f"t{uid_index}"})
        got = rig.wait_for(event_of("scanned", UIDS[uid_index]), timeout=10)
        if got:
            scan.append((got[0][0] - t0) * 1000)
        else:
            lost += 1
        rig.control(0, {"cmd": "remove", "all": True})
        if not rig.wait_for(event_of("removed", UIDS[uid_index]), timeout=10):
            lost += 1
        commands.append(rig.commands(0) - before)
    return scan, commands, lost


def report(label, values):
    if values:
        print(f"  {label}: n {len(values)}  p50 {quantile(values, .5):.0f}  p95 {quantile(values, .95):.0f}"
              f"  p99 {quantile(values, .99):.0f}  max {max(values):.0f} ms")
    else:
        print(f"  {label}: no samples")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("bench")
    ap.add_argument("--taps", type=int, default=200)
    ap.add_argument("--interval", type=int, default=250)
    ap.add_argument("--on", type=int, default=300)
    ap.add_argument("--off", type=int, default=100)
    ap.add_argument("--intervals", default="100,250,500")
    ap.add_argument("--grace", type=int, default=600)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--agents", type=int, default=10)
    ap.add_argument("--delays", default="100ms,1s")
    ap.add_argument("--sim-arg", action="append", default=[],
                    help="an argument for nfcbridge-sim (repeatable): --sim-arg=--without-autopoll measures the host's own polling")
    a = ap.parse_args()
    print(f"load: {open('/proc/loadavg').read().split()[:3]}")

    if a.bench == "access":
        # The access checks (docs/access-control.md) on a genuine NTAG216 (Flipper's published UID and
        # signature): each configuration in its own rig, the same taps.
        UIDS[0] = "0485928AA06181"
        scenario = ("tags:\n  - {id: t0, type: ntag216, uid: 0485928AA06181,"
                    " signature: 1B84EB70BD4CBD1B1DE4980B1858BD7C7285B4E47B388E96CF886BEEA343AD90}\ntimeline: []\n")
        configs = [
            ("no checks (signature ignore, probes off)",
             "access: {signature: ignore, probes: {uid_structure: false, version_signature_mismatch: false}}\n"),
            ("defaults (signature check, uid_structure, version_signature_mismatch)", ""),
            ("defaults + gen1a_backdoor", "access: {probes: {gen1a_backdoor: true}}\n"),
            ("defaults + gen4_gtu", "access: {probes: {gen4_gtu: true}}\n"),
        ]
        for label, extra in configs:
            rig = Rig(a.bin, sim_args=a.sim_arg, interval=a.interval, scenario=scenario,
                      extra_config=lambda _folder, extra=extra: extra)
            try:
                scan, commands, lost = access_taps(rig, a.taps)
                print(f"{label}, {a.taps} taps:")
                report("place -> scanned received", scan)
                print(f"  PN532 commands per tap (place to removed, polls and presence checks included): "
                      f"median {quantile(commands, .5):.0f}, min {min(commands)}, max {max(commands)}; lost {lost}")
            finally:
                rig.close()

    elif a.bench == "latency":
        rig = Rig(a.bin, sim_args=a.sim_arg, interval=a.interval)
        try:
            scan, removal, lost = latency(rig, a.taps, a.on)
            print(f"latency, interval_ms {a.interval}, defaults otherwise (removal_grace_ms 600), {a.taps} taps:")
            report("place -> scanned received", scan)
            report("remove -> removed received", removal)
            print(f"  events lost (none within 10 s): {lost}")
        finally:
            rig.close()

    elif a.bench == "churn":
        rig = Rig(a.bin, sim_args=a.sim_arg, interval=a.interval)
        try:
            pid = rig.agents[0].pid
            rss = []
            for i in range(a.taps):
                rig.control(0, {"cmd": "place", "id": f"t{i % len(UIDS)}"})
                time.sleep(a.on / 1000)
                rig.control(0, {"cmd": "remove", "all": True})
                time.sleep(a.off / 1000)
                if i + 1 in (min(100, a.taps), a.taps):
                    rss.append((i + 1, rss_kb(pid)))
            # Every event, in one pass (the removals of the last taps come within the grace).
            events = rig.wait_for(lambda e: "/event/" in e[1], count=2 * a.taps, timeout=15)
            events += rig.wait_for(lambda e: "/event/" in e[1], count=10**6, timeout=2)
            scanned = [e for e in events if e[1].endswith("/event/scanned")]
            removed = [e for e in events if e[1].endswith("/event/removed")]
            # Taps in order: which ones got no `scanned` (the UIDs come round in turn).
            got = [json.loads(e[2]).get("uid") for e in scanned]
            missed, j = [], 0
            for i in range(a.taps):
                if j < len(got) and got[j] == UIDS[i % len(UIDS)]:
                    j += 1
                else:
                    missed.append(i + 1)
            print(f"churn: {a.taps} taps ({a.on} ms on, {a.off} ms off, {len(UIDS)} UIDs in turn), interval_ms {a.interval}:")
            print(f"  scanned {len(scanned)}  removed {len(removed)}  (expected {a.taps} each); "
                  f"taps without scanned: {missed[:20] or 'none'}")
            print("  RSS: " + ", ".join(f"{kb / 1024:.1f} MB after tap {n}" for n, kb in rss))
        finally:
            rig.close()

    elif a.bench == "slowdisk":
        # Taps of --on ms on / --off ms off while strace delays every fsync the agent makes (an SD
        # card's fsync on a Pi is 100 ms class; 1 s is a stalling one). Taps lost: expected 0.
        for delay in a.delays.split(","):
            wrap = ["strace", "-f", "-qq", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=fsync",
                    "-e", f"inject=fsync:delay_enter={delay}"]
            rig = Rig(a.bin, sim_args=a.sim_arg, interval=a.interval, wrap=wrap)
            try:
                for i in range(a.taps):
                    rig.control(0, {"cmd": "place", "id": f"t{i % len(UIDS)}"})
                    time.sleep(a.on / 1000)
                    rig.control(0, {"cmd": "remove", "all": True})
                    time.sleep(a.off / 1000)
                events = rig.wait_for(lambda e: "/event/" in e[1], count=2 * a.taps, timeout=30)
                scanned = sum(1 for e in events if e[1].endswith("/event/scanned"))
                removed = sum(1 for e in events if e[1].endswith("/event/removed"))
                print(f"slowdisk: fsync +{delay}, {a.taps} taps ({a.on} ms on, {a.off} ms off), interval_ms {a.interval}: "
                      f"scanned {scanned} removed {removed}; taps lost {a.taps - scanned}")
            finally:
                rig.close()

    elif a.bench == "absence":
        # For each interval: the shortest absence (tag out of the field) that gives removed +
        # scanned in every one of --trials tries, with removal_grace_ms = --grace; absences from
        # 50 ms up to grace + interval + 400 ms.
        for interval in [int(x) for x in a.intervals.split(",")]:
            rig = Rig(a.bin, sim_args=a.sim_arg, interval=interval, presence=f"{{removal_grace_ms: {a.grace}, min_interval_ms: 0}}")
            try:
                rig.control(0, {"cmd": "place", "id": "t0"})
                rig.wait_for(event_of("scanned", UIDS[0]), timeout=10)
                results = []
                gaps = [50, 100, 200, 300, 400, 500, 600, 700, 800, 1000, 1200]
                for gap in [g for g in gaps if g <= a.grace + interval + 400]:
                    seen_all = True
                    for trial in range(a.trials):
                        time.sleep(interval / 1000 * 1.5 + 0.05 * trial)
                        rig.control(0, {"cmd": "remove", "all": True})
                        time.sleep(gap / 1000)
                        rig.control(0, {"cmd": "place", "id": "t0"})
                        got = rig.wait_for(event_of("removed", UIDS[0]), timeout=(interval + a.grace + 600) / 1000)
                        if got:
                            rig.wait_for(event_of("scanned", UIDS[0]), timeout=5)
                        else:
                            seen_all = False
                    results.append((gap, seen_all))
                always = [g for g, ok in results if ok]
                shortest = min(always) if always else None
                print(f"  interval_ms {interval}, removal_grace_ms {a.grace}: absences resolved {a.trials}/{a.trials} from "
                      f"{shortest} ms; per gap: " + " ".join(f"{g}:{'y' if ok else 'n'}" for g, ok in results))
            finally:
                rig.close()

    elif a.bench == "idle":
        for label, place in (("empty field", False), ("tag present", True)):
            rig = Rig(a.bin, sim_args=a.sim_arg, interval=a.interval)
            try:
                pid = rig.agents[0].pid
                if place:
                    rig.control(0, {"cmd": "place", "id": "t0"})
                    rig.wait_for(event_of("scanned", UIDS[0]), timeout=10)
                time.sleep(2)
                c0, k0, t0 = cpu_seconds(pid), rig.commands(0), time.time()
                time.sleep(a.seconds)
                c1, k1, t1 = cpu_seconds(pid), rig.commands(0), time.time()
                print(f"  idle, {label}, {a.seconds} s, interval_ms {a.interval}: CPU {100 * (c1 - c0) / (t1 - t0):.2f} % of a core, "
                      f"RSS {rss_kb(pid) / 1024:.1f} MB, FDs {fd_count(pid)}, PN532 commands {(k1 - k0) / (t1 - t0):.1f}/s")
            finally:
                rig.close()

    elif a.bench == "smaps":
        # Where the agent's RSS is, after --taps taps (300 ms on, 100 ms off, as churn) and --seconds
        # of idle: resident kB per part (bench/smaps.py: each file's text / read-only data / data, the
        # heap, each malloc arena, each thread's stack) and smaps_rollup's anonymous / file split.
        import smaps
        rig = Rig(a.bin, sim_args=a.sim_arg, interval=a.interval)
        try:
            pid = rig.agents[0].pid
            for i in range(max(1, a.taps)):
                rig.control(0, {"cmd": "place", "id": f"t{i % len(UIDS)}"})
                if i == 0:
                    rig.wait_for(event_of("scanned", UIDS[0]), timeout=10)
                time.sleep(a.on / 1000)
                rig.control(0, {"cmd": "remove", "all": True})
                time.sleep(a.off / 1000)
            time.sleep(a.seconds)
            r = smaps.rollup(pid)
            print(f"  agent after {max(1, a.taps)} taps and {a.seconds} s idle: RSS {r['Rss'] / 1024:.1f} MB "
                  f"(anonymous {r['Anonymous'] / 1024:.1f}, file {(r['Rss'] - r['Anonymous']) / 1024:.1f}, "
                  f"private dirty {r['Private_Dirty'] / 1024:.1f}); threads "
                  f"{len(os.listdir(f'/proc/{pid}/task'))}; by part:")
            for line in smaps.table(pid):
                print("    " + line)
            # The executable's resident text by Swift module (needs its symbol table: not stripped).
            import textpages
            try:
                per_module, kb, mapped = textpages.resident(pid, os.path.join(a.bin, "nfcbridge"))
                print(f"  nfcbridge text resident {kb} kB of {mapped} kB mapped, by module:")
                for module, n in sorted(per_module.items(), key=lambda kv: -kv[1]):
                    print(f"    {n:7d} kB  {module}")
            except (OSError, SystemExit, subprocess.CalledProcessError) as error:
                print(f"  (no text by module: {error})")
        finally:
            rig.close()

    elif a.bench == "fleet":
        rig = Rig(a.bin, sim_args=a.sim_arg, agents=a.agents, interval=a.interval)
        try:
            print(f"fleet: {a.agents} agents (each with its own nfcbridge-sim), one mosquitto, {a.taps} taps on all of them, interval_ms {a.interval}:")
            fleet_rounds(rig, a.agents, a.taps, [rig.broker.pid], lambda: broker_bytes(rig))
        finally:
            rig.close()


def fleet_rounds(rig, agents, taps, broker_pids, bytes_through):
    """`taps` rounds of a tag placed on every reader at once, removed once every `scanned` arrived;
    prints broker CPU (the processes `broker_pids`) and bytes (`bytes_through()`, before and after)
    per scan, agent CPU, place -> scanned latency, lost and late events. Returns the events lost."""
    b0 = sum(cpu_seconds(pid) for pid in broker_pids)
    a0 = sum(cpu_seconds(p.pid) for p in rig.agents)
    bytes0 = bytes_through()
    t0 = time.time()
    late, lost, scan_lat = 0, 0, []
    for i in range(taps):
        starts = []
        for n in range(agents):
            starts.append(time.time())
            rig.control(n, {"cmd": "place", "id": f"t{i % len(UIDS)}"})
        got = rig.wait_for(lambda e: e[1].endswith("/event/scanned"), count=agents, timeout=15)
        lost += agents - len(got)
        for e in got:
            n = int(e[1].split("/")[1][1:])
            scan_lat.append((e[0] - starts[n]) * 1000)
        late += sum(1 for x in scan_lat[-len(got):] if x > 1000)
        for n in range(agents):
            rig.control(n, {"cmd": "remove", "all": True})
        got = rig.wait_for(lambda e: e[1].endswith("/event/removed"), count=agents, timeout=15)
        lost += agents - len(got)
    elapsed = time.time() - t0
    b1 = sum(cpu_seconds(pid) for pid in broker_pids)
    a1 = sum(cpu_seconds(p.pid) for p in rig.agents)
    bytes1 = bytes_through()
    scans = taps * agents
    print(f"  broker CPU {1000 * (b1 - b0) / scans:.2f} ms per scan ({100 * (b1 - b0) / elapsed:.1f} % of a core over {elapsed:.0f} s)")
    print(f"  agents CPU {1000 * (a1 - a0) / scans:.2f} ms per scan (idle polling included), "
          f"{100 * (a1 - a0) / elapsed / agents:.2f} % of a core per agent")
    if bytes0 is not None and bytes1 is not None:
        print(f"  bytes through the broker per scan (received + sent: publishes, PUBACKs, retained state, "
              f"the copy to the one subscriber, idle health/state traffic; scanned + removed): "
              f"{(bytes1 - bytes0) / scans:.0f}")
    report("place -> scanned received", scan_lat)
    print(f"  events lost {lost}, late (> 1 s) {late}")
    return lost


def broker_bytes(rig):
    """$SYS byte counters of the broker (received + sent), or None. The broker updates them every
    second (sys_interval 1): wait for a fresh value."""
    time.sleep(1.5)
    try:
        out = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(rig.port), "-v", "-C", "2", "-W", "3",
                              "-t", "$SYS/broker/bytes/received", "-t", "$SYS/broker/bytes/sent"],
                             capture_output=True, text=True, timeout=5).stdout
        return sum(int(line.split()[1]) for line in out.splitlines() if line.strip())
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return None


if __name__ == "__main__":
    main()
