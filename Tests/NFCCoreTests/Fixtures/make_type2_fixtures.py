#!/usr/bin/env python3
"""Writes the Type 2 export fixtures in Tests/NFCCoreTests/Fixtures/type2/.

An independent second implementation of the file layouts, written from the format descriptions
(Flipper NfcFileFormats.md / mf_ultralight_load, Proxmark3 mfu_dump_t, libnfc nfc-mfultralight sizes),
not from the Swift code, so the Swift exporters are checked against it byte for byte.

For each product it writes:
  <key>.input.json  the dump (NFCBridge JSON, hand-written subset of keys) the Swift tests import
  <key>.nfc         expected Flipper Zero .nfc (file Version 4, NTAG/Ultralight data format 2)
  <key>.pm3.bin     expected Proxmark3 MFU binary (56-byte header)
  <key>.mfd         expected libnfc MFD
  <key>.json        expected compact JSON export (Foundation's compact layout: sorted keys, "/" as "\/")
  <key>.txt         expected hex text export
  <key>.bin         expected binary export
and the import-only files listed at the end. Run: python3 make_type2_fixtures.py (from this folder).
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "type2")

# The exact product names identification gives these GET_VERSION answers (NXP names).
PRODUCT_NAMES = {"ul11": "Ultralight EV1 MF0UL11", "ul21": "Ultralight EV1 MF0UL21", "ntag210": "NTAG210",
                 "ntag212": "NTAG212", "ntag213": "NTAG213", "ntag215": "NTAG215", "ntag216": "NTAG216"}

# key, card type description, pages total, pages readable, GET_VERSION, Flipper type name,
# has READ_SIG, counters (None = not supported), tearing flags
PRODUCTS = [
    ("ultralight", "MIFARE Ultralight", 16, 16, None, "Mifare Ultralight", False, [None] * 3, [None] * 3),
    ("ulc", "MIFARE Ultralight C", 48, 44, None, "Mifare Ultralight C", False, [None] * 3, [None] * 3),
    ("ul11", "MIFARE Ultralight EV1 (MF0UL11)", 20, 20, "0004030101000B03", "Mifare Ultralight 11", True,
     [1, 256, 0x010203], [0xBD, 0xBD, 0xBD]),
    ("ul21", "MIFARE Ultralight EV1 (MF0UL21)", 41, 41, "0004030101000E03", "Mifare Ultralight 21", True,
     [0, 17, 0xFFFFFF], [0xBD, 0x00, 0xBD]),
    ("ntag203", "NTAG203", 42, 42, None, "NTAG203", False, [None] * 3, [None] * 3),
    ("ntag210", "NTAG210", 20, 20, "0004040101000B03", "Mifare Ultralight 11", True, [None] * 3, [None] * 3),
    ("ntag212", "NTAG212", 41, 41, "0004040101000E03", "Mifare Ultralight 21", True, [None] * 3, [None] * 3),
    ("ntag213", "NTAG213", 45, 45, "0004040201000F03", "NTAG213", True, [None, None, 42], [None] * 3),
    ("ntag215", "NTAG215", 135, 135, "0004040201001103", "NTAG215", True, [None, None, 95], [None] * 3),
    ("ntag216", "NTAG216", 231, 231, "0004040201001303", "NTAG216", True, [None, None, 0x123456], [None] * 3),
]


def spaced(data):
    return " ".join("%02X" % b for b in data)


def compact(data):
    return "".join("%02X" % b for b in data)


# Each product's factory CC data-area byte (size / 8; NFC Forum T2T 6.1): the datasheets' user memory,
# NTAG215 3Eh and NTAG216 6Dh as NXP writes them (NTAG213/215/216 datasheet 8.5.6). An image without
# GET_VERSION whose CC names more than its size's product holds is read as the start of a larger tag
# (issue 23), so each product carries its own.
CC_DATA_AREA = {"ultralight": 0x06, "ulc": 0x12, "ul11": 0x06, "ul21": 0x10, "ntag203": 0x12, "ntag210": 0x06,
                "ntag212": 0x10, "ntag213": 0x12, "ntag215": 0x3E, "ntag216": 0x6D}


def make_pages(index, readable):
    uid = [0x04, 0xA1 + index, 0xB2, 0xC3 + index, 0xD4, 0xE5, 0x80 + index]
    bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
    bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
    pages = [uid[0:3] + [bcc0], uid[3:7], [bcc1, 0x48, 0x00, 0x00], [0xE1, 0x10, CC_DATA_AREA[PRODUCTS[index][0]], 0x00]]
    for n in range(4, readable):
        pages.append([(n * 0x11 + i + index) & 0xFF for i in range(4)])
    return uid, pages


def signature_for(index):
    return [(index * 31 + i * 7 + 1) & 0xFF for i in range(32)]


def write(name, data):
    mode = "w" if isinstance(data, str) else "wb"
    with open(os.path.join(OUT, name), mode, **({"newline": ""} if mode == "w" else {})) as f:
        f.write(data)


def flipper(uid, pages, total, version, type_name, signature, counters, tearing):
    lines = [
        "Filetype: Flipper NFC device",
        "Version: 4",
        "Device type: NTAG/Ultralight",
        "UID: " + spaced(uid),
        "ATQA: 00 44",
        "SAK: 00",
        "Data format version: 2",
        "NTAG/Ultralight type: " + type_name,
        "Signature: " + spaced(signature or [0] * 32),
        "Mifare version: " + spaced(version or [0] * 8),
    ]
    for i in range(3):
        lines.append("Counter %d: %d" % (i, counters[i] or 0))
        lines.append("Tearing %d: %02X" % (i, tearing[i] or 0))
    lines.append("Pages total: %d" % total)
    lines.append("Pages read: %d" % len(pages))
    for n in range(total):
        lines.append("Page %d: %s" % (n, spaced(pages[n] if n < len(pages) else [0, 0, 0, 0])))
    lines.append("Failed authentication attempts: 0")
    return "\n".join(lines) + "\n"


def proxmark(pages, version, signature, counters, tearing):
    header = bytearray(56)
    if version:
        header[0:8] = bytes(version)
    header[11] = len(pages) - 1
    if signature:
        header[12:44] = bytes(signature)
    for i in range(3):
        c = counters[i] or 0
        header[44 + 4 * i: 48 + 4 * i] = bytes([c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF, tearing[i] or 0])
    return bytes(header) + b"".join(bytes(p) for p in pages)


def main():
    os.makedirs(OUT, exist_ok=True)
    for index, (key, desc, total, readable, version_hex, type_name, has_sig, counters, tearing) in enumerate(PRODUCTS):
        uid, pages = make_pages(index, readable)
        version = list(bytes.fromhex(version_hex)) if version_hex else None
        signature = signature_for(index) if has_sig else None
        doc = {
            "cardType": desc,
            "uid": compact(uid),
            "atqa": "0044",
            "sak": "00",
            "pages": [{"number": n, "data": compact(p)} for n, p in enumerate(pages)],
            "facts": [{"key": "Pages", "value": str(len(pages)), "monospaced": False}],
            "capabilities": ["Readable"],
            "counters": counters,
            "tearing": [None if t is None else "%02X" % t for t in tearing],
            "pagesTotal": total,
        }
        if version:
            doc["version"] = version_hex
            doc["product"] = PRODUCT_NAMES[key]
        if signature:
            doc["signature"] = compact(signature)
        write(key + ".input.json", json.dumps(doc, indent=1) + "\n")
        write(key + ".nfc", flipper(uid, pages, total, version, type_name, signature, counters, tearing))
        write(key + ".pm3.bin", proxmark(pages, version, signature, counters, tearing))
        write(key + ".mfd", b"".join(bytes(p) for p in pages))
        write(key + ".bin", b"".join(bytes(p) for p in pages))
        family = "NTAG" if desc.startswith("NTAG") else "MIFARE Ultralight"
        technical = "%d pages \u00b7 export %d bytes" % (len(pages), 4 * len(pages))
        exported = dict(doc, blocks=[], files=[], cardFamily=family, technicalSummary=technical,
                        userSummary="Read a Type 2 style memory map with %d pages." % len(pages))
        exported["facts"] = [{"key": f["key"], "monospaced": f["monospaced"], "value": f["value"]} for f in doc["facts"]]
        text = json.dumps(exported, sort_keys=True, separators=(",", ":"), ensure_ascii=False).replace("/", "\\/")
        write(key + ".json", text)
        lines = ["Card: " + desc, "UID: " + compact(uid), "Summary: " + technical, "Capabilities: Readable", ""]
        lines += ["Page %3d: %s" % (n, spaced(p)) for n, p in enumerate(pages)]
        write(key + ".txt", "\n".join(lines))

    # Import-only files.
    # 1. Flipper file Version 3 / data format 1, laid out like Flipper's unit-test Ntag215.nfc (the
    #    product in "Device type", no "Pages read"): UID, version and signature of that file (facts
    #    quoted in shared/reference/peers-nfc.md §5.4 and §9), pages made here.
    uid = [0x04, 0x51, 0x5C, 0xFA, 0x6F, 0x73, 0x81]
    sig = list(bytes.fromhex("4221E46C796A815EEA0D936D85EE4B0C2A00D577F1C567F36375F8EB86485E6B"))
    pages = [uid[0:3] + [0x88 ^ uid[0] ^ uid[1] ^ uid[2]], uid[3:7],
             [uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, 0x0F, 0xE0], [0xF1, 0x10, 0xFF, 0xEE]]
    pages += [[(n * 3 + i) & 0xFF for i in range(4)] for n in range(4, 135)]
    lines = ["Filetype: Flipper NFC device", "Version: 3", "# Nfc device type can be UID, Mifare Ultralight, Mifare Classic",
             "Device type: NTAG215", "# UID, ATQA and SAK are common for all formats", "UID: " + spaced(uid),
             "ATQA: 00 44", "SAK: 00", "# Mifare Ultralight specific data", "Data format version: 1",
             "Signature: " + spaced(sig), "Mifare version: 00 04 04 02 01 00 11 03",
             "Counter 0: 0", "Tearing 0: 00", "Counter 1: 0", "Tearing 1: 00", "Counter 2: 95", "Tearing 2: 00",
             "Pages total: 135"]
    lines += ["Page %d: %s" % (n, spaced(p)) for n, p in enumerate(pages)]
    write("legacy-v3-ntag215.nfc", "\n".join(lines) + "\n")
    write("amiibo-540.bin", b"".join(bytes(p) for p in pages))
    write("amiibo-532.bin", b"".join(bytes(p) for p in pages[:133]))
    write("amiibo-572.bin", b"".join(bytes(p) for p in pages) + bytes(sig))

    # 2. Flipper file Version 2 (ATQA stored LSB first), no data-format line at all, a Mifare
    #    Ultralight 11 by Device type, and a UID line that disagrees with pages 0-1.
    uid = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    pages = [uid[0:3] + [0x88 ^ uid[0] ^ uid[1] ^ uid[2]], uid[3:7], [uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, 0, 0],
             [0xE1, 0x10, 0x06, 0x00]] + [[n, n, n, n] for n in range(4, 20)]
    lines = ["Filetype: Flipper NFC device", "Version: 2", "Device type: Mifare Ultralight 11",
             "UID: 04 11 22 33 44 55 99", "ATQA: 44 00", "SAK: 00",
             "Signature: " + spaced([0] * 32), "Mifare version: 00 04 03 01 01 00 0B 03",
             "Counter 0: 0", "Tearing 0: BD", "Counter 1: 0", "Tearing 1: BD", "Counter 2: 0", "Tearing 2: BD",
             "Pages total: 20"] + ["Page %d: %s" % (n, spaced(p)) for n, p in enumerate(pages)]
    write("legacy-v2-ul11.nfc", "\n".join(lines) + "\n")

    # 3. Proxmark3 old layout (48-byte header: version 8, tbo 2, tearing 3, pack 2, tbo1 1,
    #    signature 32) of an NTAG213 with PACK 80 80.
    uid = [0x04, 0x58, 0x69, 0xD2, 0x9C, 0x39, 0x80]
    pages = [uid[0:3] + [0xBD], uid[3:7], [0xF7, 0x48, 0, 0], [0xE1, 0x10, 0x12, 0x00]]
    pages += [[0, 0, 0, 0] for _ in range(4, 45)]
    header = bytes.fromhex("0004040201000F03") + bytes(2) + bytes([0x00, 0x00, 0xBD]) + bytes([0x80, 0x80]) + bytes(1)
    header += bytes(range(32))
    write("pm3-old-ntag213.bin", header + b"".join(bytes(p) for p in pages))

    # 4. Plain 64-byte Ultralight dump (the upstream bug: taken as a 56-byte header + 2 pages).
    uid = [0x04, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC]
    pages = [uid[0:3] + [0x88 ^ 0x04 ^ 0x12 ^ 0x34], uid[3:7], [0x56 ^ 0x78 ^ 0x9A ^ 0xBC, 0x48, 0, 0],
             [0xE1, 0x10, 0x06, 0x00]] + [[n, 0, 0, n] for n in range(4, 16)]
    write("plain-ultralight-64.bin", b"".join(bytes(p) for p in pages))


if __name__ == "__main__":
    main()
