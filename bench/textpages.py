"""Which code of a running executable is resident: its text pages present in /proc/PID/pagemap, each
page given to the Swift module (or C library) whose symbols fill most of it (`nm -S` of the
unstripped binary). Standard library only; reading pagemap needs the process's owner or root.

  python3 bench/textpages.py PID BINARY     kB resident per module, and the text mapped
"""
import bisect
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
# Swift's standard substitutions for the Swift module ($sSS String, $sSa Array, $sSc... concurrency).
MODULE = re.compile(r"^\$s(\d+)")


def module_of(symbol):
    m = MODULE.match(symbol)
    if m:
        n = int(m.group(1))
        return symbol[m.end():m.end() + n]
    if symbol.startswith(("$sS", "$ss")):
        return "Swift (standard library)"
    if symbol.startswith(("swift_task", "swift_job", "swift_continuation", "swift_async", "_swift_task")):
        return "Swift concurrency runtime"
    if symbol.startswith(("_ZN5swift", "swift_", "_swift_", "__swift", "_ZN12_GLOBAL__N_1")):
        return "Swift runtime (C++)"
    if "dispatch" in symbol:
        return "libdispatch"
    if symbol.startswith("_Z"):
        return "other C++"
    return "other C"


def symbols(binary):
    """(address, size, module) of each defined text symbol, sorted by address."""
    out = subprocess.run(["nm", "-S", "-n", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    table = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            table.append((int(parts[0], 16), int(parts[1], 16), module_of(parts[3])))
    return table


def sections(binary):
    """(address, size, name) of each allocated section (readelf -SW)."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]{16})\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            found.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
    return found


def text_mapping(pid, binary):
    real = os.path.realpath(binary)
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and "x" in parts[1] and os.path.realpath(parts[5]) == real:
                start, end = (int(x, 16) for x in parts[0].split("-"))
                return start, end, int(parts[2], 16)
    raise SystemExit(f"no executable mapping of {binary} in process {pid}")


def first_load_offset(binary):
    """Virtual address minus file offset of the executable segment (readelf -lW)."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD" and "E" in parts[-2]:
            return int(parts[2], 16) - int(parts[1], 16)
    raise SystemExit("no executable LOAD segment")


def resident(pid, binary):
    start, end, offset = text_mapping(pid, binary)
    # The load bias: runtime address = link address + bias (PIE); link address = file offset + the
    # segment's p_vaddr - p_offset.
    bias = start - offset - first_load_offset(binary)
    table = symbols(binary)
    section_table = sections(binary)
    addresses = [s[0] for s in table]
    per_module, present = {}, 0
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        f.seek(start // PAGE * 8)
        entries = f.read((end - start) // PAGE * 8)
    for i in range((end - start) // PAGE):
        (entry,) = struct.unpack_from("<Q", entries, i * 8)
        if not entry >> 63 & 1:
            continue
        present += 1
        lo = start + i * PAGE - bias
        hi = lo + PAGE
        share = {}
        j = max(0, bisect.bisect_right(addresses, lo) - 1)
        while j < len(table) and table[j][0] < hi:
            a, size, module = table[j]
            overlap = min(hi, a + max(size, 1)) - max(lo, a)
            if overlap > 0:
                share[module] = share.get(module, 0) + overlap
            j += 1
        if not share:
            # No code symbol: the section (.rela.dyn, .dynstr, .eh_frame, swift5_* metadata...).
            for a, size, name in section_table:
                overlap = min(hi, a + size) - max(lo, a)
                if overlap > 0:
                    share[f"section {name}"] = share.get(f"section {name}", 0) + overlap
        owner = max(share, key=share.get) if share else "(no symbol)"
        per_module[owner] = per_module.get(owner, 0) + PAGE // 1024
    return per_module, present * PAGE // 1024, (end - start) // 1024


if __name__ == "__main__":
    per_module, kb, mapped = resident(int(sys.argv[1]), sys.argv[2])
    print(f"text resident {kb} kB of {mapped} kB mapped; by module (page given to the module filling most of it):")
    for module, n in sorted(per_module.items(), key=lambda kv: -kv[1]):
        print(f"  {n:7d} kB  {module}")
