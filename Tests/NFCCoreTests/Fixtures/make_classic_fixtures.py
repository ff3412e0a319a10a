#!/usr/bin/env python3
"""Writes the MIFARE Classic export/import fixtures in Tests/NFCCoreTests/Fixtures/classic/.

An independent second implementation of the Classic file layouts, written from the format descriptions
(libnfc nfc-mfclassic: raw 16-byte blocks, 320/1024/2048/4096 bytes; Flipper Zero mf_classic.c
save/load: "Mifare Classic type" before "Data format version: 2", "??" per unknown byte, key A /
access bits / key B of a trailer known independently) and NFCBridge's rules in docs/formats.md
(unknown = zeros in an MFD; a sector of zeros is unread; an all-zero key or access-bits part is
unknown), not from the Swift code, so the Swift exporters and importers are checked against it.

For each product it writes:
  <key>.input.json        the dump (NFCBridge JSON, hand-written subset of keys) the Swift tests import
  <key>.mfd               expected libnfc MFD export
  <key>.nfc               expected Flipper Zero .nfc export (file Version 4, Classic data format 2)
  <key>.mfd.import.json   the dump importing <key>.mfd must give
  <key>.nfc.import.json   the dump importing <key>.nfc must give
and import-only files, each with its <file>.import.json. Run: python3 make_classic_fixtures.py
(from this folder).
"""
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "classic")

FACT_KEY_A = "Sectors Without Key A"
FACT_ACCESS = "Sectors Without Access Bits"
FACT_KEY_B = "Sectors Without Key B"
PARTS = [(FACT_KEY_A, range(0, 6)), (FACT_ACCESS, range(6, 10)), (FACT_KEY_B, range(10, 16))]

# key, card type description, Flipper type name, sector groups (count, blocks per sector), UID,
# ATQA and SAK stored in the dump (None: not known, the exporter uses the product's), default SAK and
# ATQA low byte (4-byte UID), unread sectors, trailer parts unknown per fact, sectors whose key A is
# the all-zero key (known, so exported as 00, but an MFD import reads it as unknown).
PRODUCTS = [
    ("mini", "MIFARE Mini 0.3K", "MINI", [(5, 4)], [0x5A, 0x10, 0x20, 0x30], "0004", "09", 0x09, 0x04,
     [], {}, []),
    ("1k", "MIFARE Classic 1K", "1K", [(16, 4)], [0xDE, 0xAD, 0xBE, 0xEF], "0004", "08", 0x08, 0x04,
     [3, 12], {FACT_KEY_A: [6], FACT_ACCESS: [8], FACT_KEY_B: [5, 6, 8, 9, 10, 11, 15]}, [9]),
    ("plus2k", "MIFARE Plus 2K (SL1)", "Plus 2K", [(32, 4)], [0x04, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76], None, None,
     0x08, 0x04, [31], {FACT_KEY_B: [0, 1, 2, 3]}, []),
    ("4k", "MIFARE Classic 4K", "4K", [(32, 4), (8, 16)], [0x04, 0x9A, 0x8B, 0x7C, 0x6D, 0x5E, 0x4F], None, None,
     0x18, 0x02, [2, 33, 39], {FACT_KEY_B: [34]}, []),
]


def spaced(data):
    return " ".join("%02X" % b for b in data)


def compact(data):
    return "".join("%02X" % b for b in data)


def sector_list(sectors):
    """[0, 1, 2, 3, 7] -> '0-3, 7'."""
    out, run = [], []
    for s in sorted(sectors):
        if run and s == run[-1] + 1:
            run.append(s)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
        run = [s]
    if run:
        out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
    return ", ".join(out)


def sectors_of(groups):
    """[(first block, block count)] per sector."""
    result, block = [], 0
    for count, per in groups:
        for _ in range(count):
            result.append((block, per))
            block += per
    return result


def write(name, data):
    mode = "w" if isinstance(data, str) else "wb"
    with open(os.path.join(OUT, name), mode, **({"newline": ""} if mode == "w" else {})) as f:
        f.write(data)


def block0(uid, sak, atqa_low):
    """NXP block 0: UID (+ BCC for 4 bytes), SAK, ATQA LSB first, then manufacturer bytes."""
    data = list(uid)
    if len(uid) == 4:
        data.append(uid[0] ^ uid[1] ^ uid[2] ^ uid[3])
    data += [sak, atqa_low | (0x40 if len(uid) == 7 else 0), 0x00]
    data += [0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69]
    return data[:16]


def trailer(sector, zero_key_a):
    key_a = [0] * 6 if zero_key_a else [0xA0 + sector % 16, 0x11, 0x22, 0x33, 0x44, sector]
    access = [0xFF, 0x07, 0x80, 0x69] if sector % 3 else [0x7F, 0x07, 0x88, 0x40 + sector]
    key_b = [0xB0, sector, 0xB2, 0xB3, 0xB4, 0xB5 ^ sector]
    return key_a + access + key_b


def dump_doc(desc, uid, atqa, sak, blocks, facts, total, gaps):
    """An NFCBridge JSON dump with the keys the Swift importer reads; the gaps as the typed
    `trailerGaps` key (the facts are only their text for people)."""
    capabilities = (["Readable"] if blocks else []) + ["Authentication Required"]
    if len(blocks) < total:
        capabilities.append("Partially Readable")
    doc = {"cardType": desc, "uid": compact(uid)}
    if atqa is not None:
        doc["atqa"] = atqa
    if sak is not None:
        doc["sak"] = sak
    doc["blocks"] = [{"number": n, "data": compact(d), "locked": False} for n, d in sorted(blocks.items())]
    doc["facts"] = [{"key": k, "value": v, "monospaced": False} for k, v in facts]
    doc["capabilities"] = capabilities
    doc["trailerGaps"] = {"accessBits": sorted(gaps.get(FACT_ACCESS, [])), "keyA": sorted(gaps.get(FACT_KEY_A, [])),
                          "keyB": sorted(gaps.get(FACT_KEY_B, []))}
    return json.dumps(doc, indent=1) + "\n"


def gap_facts(gaps):
    return [(name, sector_list(gaps[name])) for name, _ in PARTS if gaps.get(name)]


def known_bytes(blocks, gaps, groups):
    """Block number -> 16 entries, None where unknown."""
    known = {}
    for sector, (first, per) in enumerate(sectors_of(groups)):
        for n in range(first, first + per):
            if n not in blocks:
                known[n] = [None] * 16
                continue
            data = list(blocks[n])
            if n == first + per - 1:
                for name, byte_range in PARTS:
                    if sector in gaps.get(name, []):
                        for i in byte_range:
                            data[i] = None
            known[n] = data
    return known


def mfd_of(known, total):
    return bytes(b if b is not None else 0 for n in range(total) for b in known[n])


def flipper_of(uid, atqa_bytes, sak_byte, type_name, known, total):
    lines = [
        "Filetype: Flipper NFC device",
        "Version: 4",
        "Device type: Mifare Classic",
        "UID: " + spaced(uid),
        "ATQA: " + spaced(atqa_bytes),
        "SAK: %02X" % sak_byte,
        "Mifare Classic type: " + type_name,
        "Data format version: 2",
    ]
    for n in range(total):
        lines.append("Block %d: %s" % (n, " ".join("??" if b is None else "%02X" % b for b in known[n])))
    return "\n".join(lines) + "\n"


def import_mfd(data, groups):
    """NFCBridge's MFD reading rules: a sector of zeros is unread; all-zero trailer parts unknown."""
    blocks, gaps = {}, {}
    for sector, (first, per) in enumerate(sectors_of(groups)):
        sector_bytes = data[first * 16:(first + per) * 16]
        if not any(sector_bytes):
            continue
        for n in range(first, first + per):
            blocks[n] = list(data[n * 16:n * 16 + 16])
        last = blocks[first + per - 1]
        for name, byte_range in PARTS:
            if not any(last[i] for i in byte_range):
                gaps.setdefault(name, []).append(sector)
    return blocks, gaps


def uid_from_block0(block):
    if block[0] ^ block[1] ^ block[2] ^ block[3] == block[4]:
        return block[:4]
    return block[:7]


def imported_doc(desc, uid, atqa, sak, blocks, gaps, total, source):
    facts = [("Imported From", source), ("Blocks Read", "%d of %d" % (len(blocks), total))] + gap_facts(gaps)
    return dump_doc(desc, uid, atqa, sak, blocks, facts, total, gaps)


def default_atqa(atqa_low, uid):
    return [0x00, atqa_low | (0x40 if len(uid) == 7 else 0)]


def main():
    os.makedirs(OUT, exist_ok=True)
    for index, (key, desc, type_name, groups, uid, atqa, sak, sak_default, atqa_low, unread, gaps,
                zero_key_a) in enumerate(PRODUCTS):
        sectors = sectors_of(groups)
        total = sum(per for _, per in sectors)
        blocks = {}
        for sector, (first, per) in enumerate(sectors):
            if sector in unread:
                continue
            for n in range(first, first + per - 1):
                blocks[n] = [(n * 7 + i * 13 + index) & 0xFF for i in range(16)]
            if first == 0:
                blocks[0] = block0(uid, sak_default, atqa_low)
            data = trailer(sector, sector in zero_key_a)
            # What a reader leaves in the unknown parts: zeros.
            for name, byte_range in PARTS:
                if sector in gaps.get(name, []):
                    for i in byte_range:
                        data[i] = 0
            blocks[first + per - 1] = data
        facts = [("Blocks Read", "%d of %d" % (len(blocks), total))] + gap_facts(gaps)
        write(key + ".input.json", dump_doc(desc, uid, atqa, sak, blocks, facts, total, gaps))

        known = known_bytes(blocks, gaps, groups)
        atqa_bytes = list(bytes.fromhex(atqa)) if atqa else default_atqa(atqa_low, uid)
        sak_byte = int(sak, 16) if sak else sak_default
        mfd = mfd_of(known, total)
        write(key + ".mfd", mfd)
        write(key + ".nfc", flipper_of(uid, atqa_bytes, sak_byte, type_name, known, total))

        # Importing the MFD: type by size, UID from block 0, the product's ATQA/SAK, zeros as unknown.
        mfd_blocks, mfd_gaps = import_mfd(mfd, groups)
        mfd_uid = uid_from_block0(mfd_blocks[0]) if 0 in mfd_blocks else []
        write(key + ".mfd.import.json",
              imported_doc(desc, mfd_uid, compact(default_atqa(atqa_low, mfd_uid)), "%02X" % sak_default,
                           mfd_blocks, mfd_gaps, total, "libnfc MFD"))
        # Importing the Flipper file: everything the file says, unknown parts as zeros.
        write(key + ".nfc.import.json",
              imported_doc(desc, uid, compact(atqa_bytes), "%02X" % sak_byte, blocks, gaps, total,
                           "Flipper Zero .nfc"))

    # Import-only files.
    # 1. What `nfc-mfclassic r a u` writes for a 1K with factory keys, except sector 1 (key A
    #    A0A1A2A3A4A5): the key A it used, the access bits read, key B as zeros (never tried).
    groups = [(16, 4)]
    uid = [0x11, 0x22, 0x33, 0x44]
    data = bytearray(1024)
    data[0:16] = bytes(block0(uid, 0x08, 0x04))
    data[16:32] = bytes(range(16))
    data[4 * 16:5 * 16] = b"NFCBridge badge\x00"
    for sector in range(16):
        key_a = bytes.fromhex("A0A1A2A3A4A5") if sector == 1 else b"\xFF" * 6
        data[(sector * 4 + 3) * 16:(sector * 4 + 4) * 16] = key_a + bytes.fromhex("FF078069") + bytes(6)
    write("nfc-mfclassic-1k.mfd", bytes(data))
    blocks, gaps = import_mfd(bytes(data), groups)
    write("nfc-mfclassic-1k.mfd.import.json",
          imported_doc("MIFARE Classic 1K", uid, "0004", "08", blocks, gaps, 64, "libnfc MFD"))

    # 2. A Flipper file Version 2 (ATQA stored LSB first), Classic data format 2, with the comment lines
    #    Flipper writes: sector 1 unread, sector 2 without key B, blocks 5-6 unread (all ??).
    uid = [0xC0, 0xFF, 0xEE, 0x01]
    blocks = {0: block0(uid, 0x08, 0x04), 1: [0x11] * 16, 2: [0x22] * 16, 3: trailer(0, False)}
    for n in range(8, 64):
        blocks[n] = trailer(n // 4, False) if n % 4 == 3 else [n] * 16
    blocks[11] = blocks[11][:10] + [0] * 6
    gaps = {FACT_KEY_B: [2]}
    known = known_bytes(blocks, gaps, groups)
    lines = ["Filetype: Flipper NFC device", "Version: 2",
             "# Nfc device type can be UID, Mifare Ultralight, Mifare Classic, Bank card",
             "Device type: Mifare Classic", "# UID, ATQA and SAK are common for all formats",
             "UID: " + spaced(uid), "ATQA: 04 00", "SAK: 08", "# Mifare Classic specific data",
             "Mifare Classic type: 1K", "Data format version: 2",
             "# Mifare Classic blocks, '??' means unknown data"]
    lines += ["Block %d: %s" % (n, " ".join("??" if b is None else "%02X" % b for b in known[n])) for n in range(64)]
    write("legacy-v2-1k.nfc", "\n".join(lines) + "\n")
    write("legacy-v2-1k.nfc.import.json",
          imported_doc("MIFARE Classic 1K", uid, "0004", "08", blocks, gaps, 64, "Flipper Zero .nfc"))

    # 3. A Flipper file Version 3 without a data-format line (older than data format 2): no "??";
    #    sector 2 unread (zeros), key B of every sector unknown (zeros). Read as an MFD is.
    uid = [0xAB, 0xCD, 0x12, 0x34]
    data = bytearray(1024)
    data[0:16] = bytes(block0(uid, 0x08, 0x04))
    for sector in range(16):
        if sector == 2:
            continue
        for n in range(sector * 4, sector * 4 + 3):
            if n:
                data[n * 16:n * 16 + 16] = bytes([sector] * 16)
        data[(sector * 4 + 3) * 16:(sector * 4 + 4) * 16] = b"\xFF" * 6 + bytes.fromhex("FF078069") + bytes(6)
    lines = ["Filetype: Flipper NFC device", "Version: 3",
             "# Nfc device type can be UID, Mifare Ultralight, Mifare Classic",
             "Device type: Mifare Classic", "# UID, ATQA and SAK are common for all formats",
             "UID: " + spaced(uid), "ATQA: 00 04", "SAK: 08", "# Mifare Classic specific data",
             "Mifare Classic type: 1K", "# Mifare Classic blocks"]
    lines += ["Block %d: %s" % (n, spaced(data[n * 16:n * 16 + 16])) for n in range(64)]
    write("legacy-v3-1k.nfc", "\n".join(lines) + "\n")
    blocks, gaps = import_mfd(bytes(data), groups)
    write("legacy-v3-1k.nfc.import.json",
          imported_doc("MIFARE Classic 1K", uid, "0004", "08", blocks, gaps, 64, "Flipper Zero .nfc"))


if __name__ == "__main__":
    main()
