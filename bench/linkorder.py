"""The functions the agent runs from its start through taps, for lld's --symbol-ordering-file:
the release link puts them first in `.text`, so the code the agent keeps resident fills fewer
pages (the kernel maps 64 kB of file pages around each fault: scattered hot functions drag their
neighbours in). Runs one agent of bench/agent.py's rig under `valgrind --tool=callgrind` (every
function executed, not a sample: a function run once at start-up stays resident as much as a hot
one), places and removes the 4 UIDs' tags, waits out a health report, stops the agent, and writes the executed functions of
the executable (mangled names, sorted) to OUT. Every process started here is stopped here.

  python3 bench/linkorder.py BIN_DIR OUT [--taps N] [--idle S]

BIN_DIR holds a release `nfcbridge` (unstripped) and an `nfcbridge-sim`. Needs valgrind.
Regenerate when the agent's code changes much (a stale name is skipped by the link; the order
only loses its effect gradually): see bench/README.md, issue 25, "code locality".
"""
import argparse
import glob
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from agent import Rig, UIDS, event_of, stop_processes  # noqa: E402


def executed(callgrind_out, binary):
    """Mangled names of the functions callgrind saw run inside `binary` (ob= the executable)."""
    names, current_object = set(), None
    real = os.path.realpath(binary)
    for line in open(callgrind_out, errors="replace"):
        if line.startswith("ob="):
            current_object = os.path.realpath(line[3:].strip())
        elif line.startswith("fn=") and current_object == real:
            name = line[3:].strip()
            # callgrind names a function it has no symbol for by its address: nothing to order.
            if name and not re.match(r"^0x[0-9a-f]+$", name):
                names.add(name)
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("out")
    ap.add_argument("--taps", type=int, default=12)
    ap.add_argument("--idle", type=int, default=65,
                    help="seconds of empty field after the taps (the health report comes every 60 s)")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="nfcbridge-linkorder-")
    out_pattern = os.path.join(work, "callgrind.%p")
    wrap = ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no", "--compress-pos=no",
            "--dump-instr=no", f"--callgrind-out-file={out_pattern}"]
    rig = Rig(a.bin, wrap=wrap)
    try:
        for i in range(a.taps):
            uid = UIDS[i % len(UIDS)]
            rig.control(0, {"cmd": "place", "id": f"t{i % len(UIDS)}"})
            if not rig.wait_for(event_of("scanned", uid), timeout=60):
                print(f"tap {i + 1}: no scanned within 60 s", file=sys.stderr)
            rig.control(0, {"cmd": "remove", "all": True})
            if not rig.wait_for(event_of("removed", uid), timeout=60):
                print(f"tap {i + 1}: no removed within 60 s", file=sys.stderr)
        time.sleep(a.idle)
    finally:
        # SIGTERM: the agent stops cleanly and callgrind writes its file as the process exits.
        stop_processes(rig.procs)
        rig.close()
    files = glob.glob(os.path.join(work, "callgrind.*"))
    if not files:
        sys.exit(f"no callgrind output in {work}")
    names = set()
    for f in files:
        names |= executed(f, os.path.join(a.bin, "nfcbridge"))
    with open(a.out, "w") as f:
        for name in sorted(names):
            f.write(name + "\n")
    print(f"{len(names)} functions of {os.path.join(a.bin, 'nfcbridge')} executed over start-up and "
          f"{a.taps} taps: {a.out} (callgrind output kept in {work})")


if __name__ == "__main__":
    main()
