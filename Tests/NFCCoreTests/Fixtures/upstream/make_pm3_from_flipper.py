#!/usr/bin/env python3
"""Writes the Proxmark3 files of the NTAG215 in Flipper's Ntag215.nfc, as the RRG client lays them out.

Written from the format descriptions only (not from NFCBridge's Swift exporters), so the tests compare two
implementations:
- hf-mfu-04515CFA6F7381-dump.bin: `mfu_dump_t` (client/src/cmdhfmfu.h, doc/mfu_binary_format_notes.md
  "New mfu format"): version 8, tbo 2, tbo1 1, pages (highest page number) 1, signature 32,
  3 x (counter 3 bytes least significant first, tearing 1), then the pages.
- hf-mfu-04515CFA6F7381-dump.json: the client's JSON (`"FileType": "mfu"`, client/src/fileutils.c
  saveFileJSONex, jsfMfuMemory): Card.UID (pages 0-1 without BCC0), Version, TBO_0, TBO_1, Signature,
  Counter0..2 / Tearing0..2 as hex of the header bytes, blocks "0".. as 4-byte hex; jansson's
  JSON_INDENT(2) layout.
Run: python3 make_pm3_from_flipper.py (in this folder).
"""
import json

fields, pages = {}, {}
for line in open("Ntag215.nfc", encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#") or ": " not in line:
        continue
    key, value = line.split(": ", 1)
    if key.startswith("Page "):
        pages[int(key[5:])] = bytes.fromhex(value)
    else:
        fields[key] = value

version = bytes.fromhex(fields["Mifare version"])
signature = bytes.fromhex(fields["Signature"])
counters = [int(fields[f"Counter {i}"]) for i in range(3)]
tearing = [bytes.fromhex(fields[f"Tearing {i}"]) for i in range(3)]
image = b"".join(pages[i] for i in range(len(pages)))

header = version + bytes(2) + bytes(1) + bytes([len(pages) - 1]) + signature
for value, flag in zip(counters, tearing):
    header += value.to_bytes(3, "little") + flag
assert len(header) == 56
uid = pages[0][:3] + pages[1]
name = "hf-mfu-" + uid.hex().upper() + "-dump"
open(name + ".bin", "wb").write(header + image)

card = {"UID": uid.hex().upper(), "Version": version.hex().upper(), "TBO_0": "0000", "TBO_1": "00",
        "Signature": signature.hex().upper()}
for i in range(3):
    card[f"Counter{i}"] = header[44 + 4 * i:47 + 4 * i].hex().upper()
    card[f"Tearing{i}"] = header[47 + 4 * i:48 + 4 * i].hex().upper()
document = {"Created": "proxmark3", "FileType": "mfu", "Card": card,
            "blocks": {str(i): pages[i].hex().upper() for i in range(len(pages))}}
open(name + ".json", "w").write(json.dumps(document, indent=2) + "\n")
