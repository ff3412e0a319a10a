"""Wrong final scans on a lossy reader link (issue 20): nfcbridge-sim drops 1 byte in N on its pty
(both ways, seeded: `--drop-one-in N --drop-seed S`), and an NTAG215 with a URI is tapped TAPS
times (on HOLD ms, then removed). For each tap the *final* scan is the last `event/scanned` of the
tag before it was removed; it is wrong when its cardType is not NTAG215 or its NDEF is not the
tag's URI. Also counts every wrong `scanned` (corrected later or not), `error` events, and
`removed` events that came while the tag was still there. Every process started is stopped.

  python3 bench/lossy.py BIN [--taps 150] [--one-in 500] [--seed 1] [--hold 1500]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from agent import Rig, UIDS  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--taps", type=int, default=150)
    ap.add_argument("--one-in", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hold", type=int, default=1500)
    a = ap.parse_args()
    uid, uri = UIDS[0], "https://example.com/0"
    rig = Rig(a.bin, sim_args=["--drop-one-in", str(a.one_in), "--drop-seed", str(a.seed)])
    wrong_final, wrong_any, errors, early_removed, no_scan, scans = 0, 0, {}, 0, 0, 0
    try:
        for n in range(1, a.taps + 1):
            if n % 10 == 1 and n > 1:  # progress, so a run cut short still says something
                print(f"  after {n - 1} taps: wrong final {wrong_final}, no scan {no_scan}", flush=True)
            rig.control(0, {"cmd": "place", "id": "t0"})
            # The first `scanned`, then whatever comes while the tag stays.
            events = rig.wait_for(lambda e: e[1].endswith("/event/scanned") and uid in e[2], timeout=15)
            deadline = time.time() + a.hold / 1000
            while time.time() < deadline:
                events += rig.wait_for(lambda e: "/event/" in e[1], timeout=max(0.0, deadline - time.time()))
            rig.control(0, {"cmd": "remove", "all": True})
            events += rig.wait_for(lambda e: e[1].endswith("/event/removed") and uid in e[2], timeout=15)
            scanned = [json.loads(e[2]) for e in events if e[1].endswith("/event/scanned")]
            early_removed += sum(1 for e in events[:-1] if e[1].endswith("/event/removed"))
            for e in events:
                if e[1].endswith("/event/error"):
                    code = (json.loads(e[2]).get("error") or {}).get("code", "?")
                    errors[code] = errors.get(code, 0) + 1
            if not scanned:
                no_scan += 1
                continue
            scans += len(scanned)
            if os.environ.get("LOSSY_SHOW"):
                print([(s.get("cardType"), s.get("ndefStatus")) for s in scanned])

            def ok(s):
                return s.get("cardType") == "NTAG215" and uri in json.dumps(s.get("ndef"), ensure_ascii=False).replace("\\/", "/")
            wrong_any += sum(1 for s in scanned if not ok(s))
            wrong_final += 0 if ok(scanned[-1]) else 1
        print(f"lossy link: 1 byte in {a.one_in} dropped (seed {a.seed}), {a.taps} taps of an NTAG215, hold {a.hold} ms:")
        print(f"  scanned events: {scans}; taps without one: {no_scan}")
        print(f"  wrong final scans: {wrong_final}; wrong scans published (any): {wrong_any}")
        print(f"  removed while the tag stayed: {early_removed}; error events: {errors}")
    finally:
        rig.close()


if __name__ == "__main__":
    main()
