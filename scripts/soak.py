#!/usr/bin/env python3
"""make soak: `nfcbridge run` for SOAK_MINUTES (default 60) against a real mosquitto and the PN532
emulator on a pty, with tag churn, the broker frozen (SIGSTOP) for 30 s and then restarted every
10 minutes, and the reader unplugged (simulator killed, a new one on the same link) every 15
minutes. Prints the agent's RSS (with anonymous / file-backed split (RssAnon, RssFile), smaps_rollup's private dirty and
the malloc heaps, bench/smaps.py), open file descriptors and threads every minute, and keeps the
per-part table (smaps-MMM.txt: minute 2, every 15 minutes, the end) in the work folder; at the end checks
that every tap was reported exactly once (one `scanned` and one `removed` event per tap, each
`event_id` once) and that RSS and FDs stayed flat. Exit status 0 when every check passed.

Not part of CI (it takes an hour). Usage: scripts/soak.py [BIN_DIR]   (default .build/debug)
Environment: SOAK_MINUTES (60), SOAK_BROKER_EVERY (600 s), SOAK_FREEZE (30 s), SOAK_UNPLUG_EVERY
(900 s), SOAK_RSS_GROWTH_KB (allowed RSS growth from minute 2 to the end, 8192), SOAK_KEEP (keep the
temporary folder; it is kept anyway when a check fails).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import smaps  # noqa: E402
from agentlab import Broker, LineLog, Simulator, elapsed, received_events, stop_all, write_agent_config  # noqa: E402

MINUTES = float(os.environ.get("SOAK_MINUTES", "60"))
BROKER_EVERY = float(os.environ.get("SOAK_BROKER_EVERY", "600"))
FREEZE = float(os.environ.get("SOAK_FREEZE", "30"))
UNPLUG_EVERY = float(os.environ.get("SOAK_UNPLUG_EVERY", "900"))
RSS_GROWTH_KB = int(os.environ.get("SOAK_RSS_GROWTH_KB", "8192"))
ROOT = "nfc/soak"

source = sys.argv[1] if len(sys.argv) > 1 else ".build/debug"
work = tempfile.mkdtemp(prefix="nfcbridge-soak-")
# Copies: a rebuild during the hour must not replace the running binaries.
for name in ("nfcbridge", "nfcbridge-sim"):
    shutil.copy2(os.path.join(source, name), os.path.join(work, name))
t0 = time.monotonic()
children = []
lock = threading.Lock()


def say(text):
    print(f"[{elapsed() / 60:6.2f} min] {text}", flush=True)
    with open(f"{work}/soak.log", "a") as f:
        f.write(f"{elapsed():9.3f} {text}\n")


def spawn(args, **kw):
    p = subprocess.Popen(args, **kw)
    children.append(p)
    return p


# Broker: persistence on, so the watcher's QoS 1 session survives restarts (agentlab.Broker).
lab_broker = Broker(work, spawn)
port, broker_dir = lab_broker.port, lab_broker.dir


def start_broker():
    global broker
    lab_broker.start()
    broker = lab_broker.process


def stop_broker():
    lab_broker.stop()


start_broker()

# The watcher: a persistent MQTT session (QoS 1) that records every event the agent publishes.
events = lab_broker.watch(f"{ROOT}/event/#", "soak-watch", f"{work}/events.log")

# The simulator: unplugging kills it; a new one opens a new pty behind the same link.
lab_sim = Simulator(f"{work}/nfcbridge-sim", work, spawn)
link = lab_sim.link
sim = None


def start_sim():
    global sim
    lab_sim.start()
    sim = lab_sim.process


sim_request = lab_sim.request


start_sim()

write_agent_config(f"{work}/config.yaml", "soak", link, port, f"{work}/state")
agent = spawn([f"{work}/nfcbridge", "run", "--config", f"{work}/config.yaml"],
              env=dict(os.environ, LIBNFC_AUTO_SCAN="false"), stdout=subprocess.DEVNULL,
              stderr=subprocess.PIPE, text=True)
log = LineLog(agent.stderr, f"{work}/agent.log", keep=lambda l: "scanned" in l or "removed" in l or "reader" in l
              or "broker" in l or "warning" in l or "error" in l or "spool" in l)
if not log.wait("reader opened", timeout=60):
    raise SystemExit("the agent did not open the reader")


def sample():
    status = {}
    with open(f"/proc/{agent.pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            status[key] = value.strip()
    fds = len(os.listdir(f"/proc/{agent.pid}/fd"))
    dirty = smaps.rollup(agent.pid)["Private_Dirty"]
    heap = sum(v[0] for k, v in smaps.breakdown(agent.pid).items() if k.startswith(("heap", "malloc arena")))
    anon, file = (int(status[key].split()[0]) for key in ("RssAnon", "RssFile"))
    return int(status["VmRSS"].split()[0]), fds, int(status["Threads"]), (anon, file, dirty, heap)


def save_smaps(label):
    """The agent's per-part table (bench/smaps.py) in the work folder, to see which part grew."""
    with open(f"{work}/smaps-{label}.txt", "w") as f:
        f.write("\n".join(smaps.table(agent.pid)) + "\n")


taps = []  # (uid, seen_by_agent_scan, seen_by_agent_removal)
stop = threading.Event()
reader_free = threading.Lock()  # held while a tap is on the reader, and while it is unplugged


def churn():
    n = 0
    while not stop.is_set():
        with reader_free:
            n += 1
            if n % 3 == 0:
                uid, kind = f"{0x10000000 + n:08X}", "classic_1k"
            else:
                uid, kind = f"04{n:012X}", "ntag215"
            tag = f"t{n}"
            try:
                sim_request({"cmd": "place", "tag": {"id": tag, "type": kind, "uid": uid}})
            except OSError as error:
                say(f"place {uid} failed: {error}")
                continue
            scanned = log.wait(f"tag {uid} (", timeout=60)
            time.sleep(0.5)
            sim_request({"cmd": "remove", "id": tag})
            removed = log.wait(f"tag {uid} removed", timeout=60)
            with lock:
                taps.append((uid, scanned, removed))
        time.sleep(0.5)


def broker_trouble():
    k = 0
    while not stop.wait(BROKER_EVERY - FREEZE if k == 0 else BROKER_EVERY - FREEZE - 2):
        k += 1
        say(f"broker frozen (SIGSTOP) for {FREEZE:.0f} s")
        broker.send_signal(signal.SIGSTOP)
        if stop.wait(FREEZE):
            broker.send_signal(signal.SIGCONT)
            return
        broker.send_signal(signal.SIGCONT)
        say("broker thawed; restarting it")
        stop_broker()
        time.sleep(2)
        start_broker()


def unplugs():
    while not stop.wait(UNPLUG_EVERY):
        with reader_free:
            reopened = log.count("reader reopened")
            say("reader unplugged (simulator killed)")
            sim.kill()
            sim.wait(10)
            time.sleep(3)
            start_sim()
            ok = log.wait("reader reopened", count=reopened + 1, timeout=120)
            say("reader plugged in again" + ("" if ok else ": the agent did NOT reopen it within 120 s"))


threads = [threading.Thread(target=f, daemon=True) for f in (churn, broker_trouble, unplugs)]
for t in threads:
    t.start()

samples = []
say(f"soak for {MINUTES:g} min; work dir {work}")
print(f"{'min':>5} {'rss_kb':>8} {'anon':>6} {'file':>6} {'pdirty':>6} {'heaps':>6} {'fds':>4} {'threads':>7} {'taps':>6} {'events':>7}", flush=True)
minute = 0
while minute < MINUTES:
    minute += 1
    time.sleep(max(0.0, t0 + minute * 60 - time.monotonic()))
    if agent.poll() is not None:
        say(f"the agent exited with {agent.returncode}")
        break
    rss, fds, nthreads, (anon, file, dirty, heaps) = sample()
    samples.append((minute, rss, fds, nthreads, anon, file, dirty, heaps))
    if minute == 2 or minute % 15 == 0 or minute >= MINUTES:
        save_smaps(f"{minute:03d}")
    with lock:
        ntaps = len(taps)
    print(f"{minute:5d} {rss:8d} {anon:6d} {file:6d} {dirty:6d} {heaps:6d} {fds:4d} {nthreads:7d} {ntaps:6d} "
          f"{len(events.lines):7d}", flush=True)

stop.set()
for t in threads:
    t.join(120)
if broker.poll() is None:
    broker.send_signal(signal.SIGCONT)


def tally():
    per_uid = {}
    ids = {}
    for kind, event in received_events(events.lines):
        ids.setdefault(event.get("event_id"), 0)
        ids[event.get("event_id")] += 1
        if kind in ("scanned", "removed") and "uid" in event:
            per_uid.setdefault((event["uid"], kind), set()).add(event.get("event_id"))
    return per_uid, ids


# Everything spooled must arrive: wait (bounded) for one `removed` per tap.
with lock:
    all_taps = list(taps)
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    per_uid, ids = tally()
    if all((uid, "removed") in per_uid for uid, _, _ in all_taps):
        break
    time.sleep(1)
per_uid, ids = tally()
agent.send_signal(signal.SIGTERM)
try:
    agent.wait(30)
except subprocess.TimeoutExpired:
    agent.kill()

missing_scanned = [u for u, _, _ in all_taps if (u, "scanned") not in per_uid]
missing_removed = [u for u, _, _ in all_taps if (u, "removed") not in per_uid]
twice = [k for k, v in per_uid.items() if len(v) > 1]
redelivered = sum(c - 1 for c in ids.values() if c > 1)
not_seen = [u for u, s, r in all_taps if not s or not r]
errors = [line for line in events.lines if line.startswith(f"{ROOT}/event/error")]
failures = []
print("\n=== soak summary ===")
print(f"duration {elapsed() / 60:.1f} min; taps {len(all_taps)}; events received {len(events.lines)} "
      f"({len(ids)} distinct event_id, {redelivered} broker redeliveries of an event_id)")
print(f"taps the agent's log did not show (scan or removal within 60 s): {len(not_seen)} {not_seen[:10]}")
print(f"taps without a `scanned` event: {len(missing_scanned)} {missing_scanned[:10]}")
print(f"taps without a `removed` event: {len(missing_removed)} {missing_removed[:10]}")
print(f"taps reported more than once (different event_ids): {len(twice)} {twice[:10]}")
print(f"error events: {len(errors)}")
for line in errors[:20]:
    print("   ", line[:300])
if missing_scanned or missing_removed or twice:
    failures.append("not every tap was reported exactly once")
    # Who lost them: the broker's log (log_type all) counts the events it took from the agent and
    # those it passed to the watcher. The agent publishes the next event only after the PUBACK of
    # the one before, so more taken than passed on (beyond redeliveries) is the broker's loss.
    taken = passed = taken_dup = passed_dup = 0
    try:
        with open(f"{broker_dir}/mosquitto.log", errors="replace") as f:
            for line in f:
                if f"'{ROOT}/event/" not in line:
                    continue
                dup = "(d1," in line
                if "Received PUBLISH from " in line and "Received PUBLISH from soak-watch" not in line:
                    taken, taken_dup = taken + (not dup), taken_dup + dup
                elif "Sending PUBLISH to soak-watch " in line:
                    passed, passed_dup = passed + (not dup), passed_dup + dup
    except OSError as error:
        print(f"broker log unreadable: {error}")
    print(f"broker log: took {taken} events from the agent (+{taken_dup} resent with DUP), passed "
          f"{passed} to the watcher (+{passed_dup} with DUP); the watcher received {len(ids)} distinct event_ids")
if len(samples) >= 3:
    _, rss0, fds0, thr0, anon0, file0, dirty0, heaps0 = samples[1]
    _, rss1, fds1, thr1, anon1, file1, dirty1, heaps1 = samples[-1]
    peak = max(s[1] for s in samples)
    print(f"RSS minute 2 → end: {rss0} → {rss1} kB (peak {peak}); FDs {fds0} → {fds1} "
          f"(max {max(s[2] for s in samples)}); threads {thr0} → {thr1} (max {max(s[3] for s in samples)})")
    print(f"  of it: anonymous {anon0} → {anon1} kB, file-backed {file0} → {file1} kB, private dirty "
          f"{dirty0} → {dirty1} kB, malloc heaps (main + arenas) {heaps0} → {heaps1} kB")
    half = samples[len(samples) // 2:]
    if len(half) >= 2:
        span = half[-1][0] - half[0][0]
        print(f"  slope over the second half (minute {half[0][0]} → {half[-1][0]}): RSS "
              f"{(half[-1][1] - half[0][1]) / span:+.1f} kB/min, anonymous {(half[-1][4] - half[0][4]) / span:+.1f}, "
              f"file {(half[-1][5] - half[0][5]) / span:+.1f}, heaps {(half[-1][7] - half[0][7]) / span:+.1f}")
    if rss1 - rss0 > RSS_GROWTH_KB:
        failures.append(f"RSS grew by {rss1 - rss0} kB (allowed {RSS_GROWTH_KB})")
    if fds1 > fds0 + 2:
        failures.append(f"open FDs grew from {fds0} to {fds1}")
print("RESULT: " + ("PASS" if not failures else "FAIL: " + "; ".join(failures)), flush=True)

stop_all(children)
if os.environ.get("SOAK_KEEP") or failures:
    print(f"kept {work} (agent.log, events.log, soak.log: seconds since the start on each line)")
else:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
