"""The rig's floor of one libnfc session: its PN532 frames sent again through nfcbridge-sim's pty
with no host work between them.

    python3 bench/replay.py LOG TTY [RUNS]

LOG is the session's LIBNFC_LOG_LEVEL=3 output (`logged` in lib.sh), TTY the simulator's link. Each
run opens the port, waits 50 ms as libnfc's pn532_uart does before its first command, then writes
each host frame (the wake-up preamble, then every command) as soon as the previous answer is
complete (ACK + answer frame, UM0701-02 §6.2.1), and closes the port. No process start, no exit, no
host work between frames: what is left is the line time, the RF time the simulator models, and what
the simulator and the pty add to every exchange (its three nanosleeps overshooting by the timer
slack, the wake-ups on both sides). frames.py's floor counts the line and RF time alone; a tool's
time over this one is the tool's own. Prints the median and min–max of RUNS runs, in seconds.
"""
import os
import re
import select
import statistics
import sys
import termios
import time
import tty


def host_frames(path):
    frames = []
    for line in open(path, errors="replace"):
        match = re.search(r"libnfc\.bus\.uart\s+TX: ([0-9a-f ]*)", line)
        if match:
            frames.append(bytes(int(x, 16) for x in match.group(1).split()))
    return frames


def read_exact(fd, count):
    out = b""
    while len(out) < count:
        ready, _, _ = select.select([fd], [], [], 2.0)
        if not ready:
            raise SystemExit("replay.py: no answer within 2 s (is the simulator's tag in the same state?)")
        chunk = os.read(fd, count - len(out))
        if not chunk:
            raise SystemExit("replay.py: the link closed")
        out += chunk
    return out


def read_answer(fd):
    read_exact(fd, 6)  # ACK
    head = read_exact(fd, 5)  # 00 00 FF LEN LCS
    length = head[3]
    if head[3:5] == b"\xff\xff":  # extended frame: LENM LENL LCS
        extended = read_exact(fd, 3)
        length = extended[0] * 256 + extended[1]
    read_exact(fd, length + 2)  # TFI..data, DCS, postamble


def replay(frames, path):
    start = time.perf_counter()
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd)
    time.sleep(0.05)
    termios.tcflush(fd, termios.TCIFLUSH)
    for frame in frames:
        os.write(fd, frame)
        if not frame.startswith(b"\x00\x00\xff"):
            continue  # the wake-up preamble (55 55 00 …) has no answer
        read_answer(fd)
    os.close(fd)
    return time.perf_counter() - start


def main():
    frames = host_frames(sys.argv[1])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    times = []
    for _ in range(runs):
        times.append(replay(frames, sys.argv[2]))
        time.sleep(0.05)  # the simulator sees the port closed before the next run
    print(f"{statistics.median(times):.3f} s ({min(times):.3f}-{max(times):.3f}), {runs} runs")


if __name__ == "__main__":
    main()
