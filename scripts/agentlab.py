"""What scripts/soak.py and scripts/chaos.py share: a child's output kept as lines one can wait
for, a free port, a persistent mosquitto, the PN532 emulator and its control socket, and the
reading of the events a watcher received. Standard library only."""
import json
import os
import socket
import subprocess
import threading
import time

T0 = time.monotonic()


def elapsed():
    return time.monotonic() - T0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LineLog:
    """Lines of a child's stream, kept with a condition so callers can wait for a pattern, and all
    of them written to `path` (kept with the work folder when a check fails)."""

    def __init__(self, stream, path, keep=None):
        self.lines = []
        self.cond = threading.Condition()
        self.keep = keep
        self.closed = threading.Event()
        self.file = open(path, "a", buffering=1)
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.file.write(f"{elapsed():9.3f} {line}")
            if self.keep and not self.keep(line):
                continue
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        self.closed.set()

    def wait_closed(self, timeout=10.0):
        """Waits until the stream ended (the child is gone and every line is in `lines`)."""
        return self.closed.wait(timeout)

    def count(self, text):
        with self.cond:
            return sum(text in line for line in self.lines)

    def wait(self, text, count=1, timeout=30.0):
        deadline = time.monotonic() + timeout
        with self.cond:
            while sum(text in line for line in self.lines) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True


class Broker:
    """mosquitto on 127.0.0.1 with persistence, so a watcher's QoS 1 session survives restarts.
    Started as root, mosquitto drops to its own user, which cannot write into a 0700 folder:
    without a folder it can write it keeps no database and a restart loses what it held."""

    def __init__(self, work, spawn):
        self.port = free_port()
        self.dir = f"{work}/broker"
        self.spawn = spawn
        self.process = None
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(work, 0o755)
        os.chmod(self.dir, 0o777)
        self.config = f"{work}/mosquitto.conf"
        with open(self.config, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                    f"persistence_location {self.dir}/\nlog_dest file {self.dir}/mosquitto.log\nlog_type all\n")

    def start(self):
        self.process = self.spawn(["mosquitto", "-c", self.config], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("mosquitto did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        if not os.path.exists(f"{self.dir}/mosquitto.db"):
            print(f"WARNING: mosquitto saved no database in {self.dir}: a restart loses what it held", flush=True)

    def watch(self, topic, client_id, path):
        """A persistent QoS 1 subscriber recording `topic` as `<topic> <payload>` lines."""
        process = self.spawn(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-i", client_id, "-c",
                              "-q", "1", "-t", topic, "-F", "%t %p"], stdout=subprocess.PIPE, text=True)
        return LineLog(process.stdout, path)


class Simulator:
    """nfcbridge-sim behind `link`; `request` speaks its control socket (docs/simulator.md)."""

    def __init__(self, binary, work, spawn):
        self.binary, self.spawn = binary, spawn
        self.link, self.control = f"{work}/pn532.tty", f"{work}/control.sock"
        self.process = None

    def start(self):
        self.process = self.spawn([self.binary, "--link", self.link, "--control", self.control],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if "ready" not in (self.process.stdout.readline() or ""):
            raise SystemExit("nfcbridge-sim did not start")

    def request(self, request):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(self.control)
            s.sendall((json.dumps(request) + "\n").encode())
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
        return json.loads(reply or b"{}")


def received_events(lines):
    """(kind, event) for every parsable `<topic> <json>` line of a watcher."""
    for line in list(lines):
        topic, _, payload = line.partition(" ")
        try:
            yield topic.rsplit("/", 1)[-1], json.loads(payload)
        except ValueError:
            continue


def stop_all(children):
    """SIGTERM to every child still running, then SIGKILL to those not gone within 10 s."""
    for p in children:
        if p.poll() is None:
            p.terminate()
    for p in children:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


def write_agent_config(path, agent_id, link, port, state_dir, extra="", log_level="info"):
    """The agent's configuration for these scripts: the simulator's link polled every 100 ms, the
    local broker, a short removal grace, no minimum interval, logging at `log_level`; `extra` is
    appended as YAML."""
    with open(path, "w") as f:
        f.write(f"""id: {agent_id}
reader:
  device: "pn532_uart:{link}"
  polling: {{interval_ms: 100}}
mqtt:
  url: mqtt://127.0.0.1:{port}
presence: {{removal_grace_ms: 300, min_interval_ms: 0}}
state_dir: {state_dir}
log: {{level: {log_level}}}
{extra}""")
