"""Frames of one libnfc session, from its LIBNFC_LOG_LEVEL=3 log (TX/RX lines of libnfc.bus.uart).

Prints: PN532 commands (host frames, ACKs not counted), tag frames (InDataExchange,
InCommunicateThru, InListPassiveTarget), bytes on the line both ways, and the line-rate floor:
bytes x 86.8 us (115200 baud, 10 bit times a byte) + the RF time the emulator models (51.2 ms for
each silent-tag answer, status 01; 15 ms for each empty InListPassiveTarget: 3 activation
attempts of 5 ms, MxRtyPassiveActivation 02 as libnfc sets it) + libnfc's fixed
50 ms wait when it opens the port.
"""
import re
import sys

BYTE_US = 1e6 * 10 / 115200
NAMES = {0x14: "SAMConfiguration", 0x00: "Diagnose", 0x02: "GetFirmwareVersion", 0x12: "SetParameters",
         0x06: "ReadRegister", 0x08: "WriteRegister", 0x32: "RFConfiguration", 0x4A: "InListPassiveTarget",
         0x44: "InDeselect", 0x52: "InRelease", 0x40: "InDataExchange", 0x42: "InCommunicateThru",
         0x16: "PowerDown", 0x60: "InAutoPoll", 0x54: "InSelect"}


def frames(stream):
    """Normal/extended information frames in a byte stream (ACKs dropped)."""
    out, i = [], 0
    while i + 5 <= len(stream):
        if stream[i:i + 3] != [0, 0, 0xFF]:
            i += 1
            continue
        if stream[i + 3:i + 5] == [0x00, 0xFF]:  # ACK
            i += 6
            continue
        length = stream[i + 3]
        start = i + 5
        if stream[i + 3:i + 5] == [0xFF, 0xFF]:  # extended
            length = stream[i + 5] * 256 + stream[i + 6]
            start = i + 8
        out.append(stream[start:start + length])
        i = start + length + 2
    return out


def main(path):
    tx, rx = [], []
    for line in open(path, errors="replace"):
        m = re.search(r"libnfc\.bus\.uart\s+(TX|RX): ([0-9a-f ]*)", line)
        if m:
            (tx if m.group(1) == "TX" else rx).extend(int(x, 16) for x in m.group(2).split())
    commands = [f for f in frames(tx) if len(f) >= 2 and f[0] == 0xD4]
    answers = [f for f in frames(rx) if len(f) >= 2 and f[0] == 0xD5]
    rf_ms = 0.0
    for answer in answers:
        if answer[1] == 0x4B and len(answer) >= 3 and answer[2] == 0:
            rf_ms += 15
        if answer[1] in (0x41, 0x43) and len(answer) >= 3 and answer[2] & 0x3F == 0x01:
            rf_ms += 51.2
    tag = sum(1 for c in commands if c[1] in (0x40, 0x42, 0x4A))
    total = len(tx) + len(rx)
    line_ms = total * BYTE_US / 1000
    floor = line_ms + rf_ms + 50
    counts = {}
    for c in commands:
        counts[c[1]] = counts.get(c[1], 0) + 1
    detail = " ".join(f"{NAMES.get(k, hex(k))}x{v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
    print(f"commands {len(commands)} tag {tag} bytes {total} line {line_ms:.1f} ms rf {rf_ms:.1f} ms "
          f"floor {floor / 1000:.3f} s | {detail}")


if __name__ == "__main__":
    main(sys.argv[1])
