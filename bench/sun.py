"""What SUN verification costs a tap (issue 21 item 4): the agent (`nfcbridge run`, keys from an
`auth.keys_file` with an `ntag424_sdm` entry) on nfcbridge-sim at 115200 baud, tapping in turn

  sun   an NTAG 424 DNA with SDM (`ntag424_sun`): GetFileSettings + PICCData decrypted + SDMMAC checked
        + the counter admitted (trust.sun)
  dna   an NTAG 424 DNA with the same URL and SDM off (`ntag424_dna`): GetFileSettings answers no SDM
  type4 a plain Type 4 tag with the same URL: no 424 steps at all

and printing per kind the median time from `place` (control socket) to `event/scanned` at a subscriber,
and the PN532 commands the tap took (the simulator's command counts, place to scanned). Nothing asserts
a time. Every process started is stopped.

  python3 bench/sun.py BIN [--taps 15]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from agent import Rig  # noqa: E402

URL = "https://door.example/t?e=" + "0" * 32 + "&c=" + "0" * 16
SCENARIO = f"""tags:
  - {{id: sun, type: ntag424_sun, uid: 04DE5F1EACC040, sun: {{url: "https://door.example/t?e={{picc}}&c={{mac}}"}}}}
  - {{id: dna, type: ntag424_dna, uid: 04D1D2D3D4D5D6, ndef: [{{uri: "{URL}"}}]}}
  - {{id: type4, type: type4, uid: 04C1C2C3C4C5C6, ndef: [{{uri: "{URL}"}}]}}
timeline: []
"""
KEYS = """keys:
  door:
    kind: ntag424_sdm
    meta_read_key: 00000000000000000000000000000000
    file_read_key: 00000000000000000000000000000000
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--taps", type=int, default=15)
    a = ap.parse_args()
    print(f"# SUN verification per tap; load: {os.getloadavg()[0]:.1f}; build: {a.bin}")
    rig = Rig(a.bin, interval=100, presence="{removal_grace_ms: 200, min_interval_ms: 0}",
              scenario=SCENARIO, extra_config=lambda d: f"auth: {{keys_file: {keys_file(d)}}}\n")
    results = {"sun": [], "dna": [], "type4": []}
    verdicts = {}
    try:
        for n in range(a.taps + 1):
            for kind in results:
                before = rig.control(0, {"cmd": "list"}).get("commands", {})
                start = time.time()
                rig.control(0, {"cmd": "place", "id": kind})
                scanned = rig.wait_for(lambda e: e[1].endswith("/event/scanned"), timeout=15)
                if not scanned:
                    print(f"  {kind}: no scanned event")
                    continue
                took = (scanned[0][0] - start) * 1000
                after = rig.control(0, {"cmd": "list"}).get("commands", {})
                # InDataExchange (40h) frames carry the tag's commands: the scan's own exchanges.
                commands = sum(after.values()) - sum(before.values())
                exchanges = after.get("40", after.get("0x40", 0)) - before.get("40", before.get("0x40", 0))
                trust = json.loads(scanned[0][2]).get("trust", {})
                if trust.get("sun"):
                    verdicts[trust["sun"]["verdict"]] = verdicts.get(trust["sun"]["verdict"], 0) + 1
                rig.control(0, {"cmd": "remove", "id": kind})
                rig.wait_for(lambda e: e[1].endswith("/event/removed"), timeout=15)
                if n > 0:  # the first round warms up
                    results[kind].append((took, commands, exchanges))
                if n == 0 and kind == "sun":
                    print(f"  command codes seen: {sorted(after)}")
    finally:
        rig.close()
    for kind, rows in results.items():
        if not rows:
            continue
        ms = [r[0] for r in rows]
        cmds = [r[1] for r in rows]
        exchanges = [r[2] for r in rows]
        print(f"{kind:6} place->scanned median {statistics.median(ms):7.1f} ms (min {min(ms):.1f}, max {max(ms):.1f}); "
              f"PN532 commands median {statistics.median(cmds)}, InDataExchange median {statistics.median(exchanges)} ({len(rows)} taps)")
    print(f"sun verdicts: {verdicts}")


def keys_file(directory):
    path = os.path.join(directory, "keys.yaml")
    with open(path, "w") as f:
        f.write(KEYS)
    os.chmod(path, 0o600)
    return path


if __name__ == "__main__":
    main()
