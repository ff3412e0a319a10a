"""Where a process's resident memory is, from /proc/PID/smaps (standard library only).

  rollup(pid)     smaps_rollup's fields in kB (Rss, Rss_Anon, Rss_File, Private_Dirty, ...)
  mappings(pid)   every mapping: start, end, perms, name and its kB fields
  breakdown(pid)  the resident kB per part: each file's text / read-only data / data, the heap,
                  each glibc malloc arena, each thread's stack (found by the stack pointer in
                  /proc/PID/task/TID/syscall), other anonymous memory
  table(pid)      breakdown() as printable lines, largest first

  python3 bench/smaps.py PID     prints the table
"""
import os
import sys

# glibc's HEAP_MAX_SIZE on 64-bit (2 * DEFAULT_MMAP_THRESHOLD_MAX): every arena but the main one is
# a mapping of this size, aligned to it, read-write at its start and PROT_NONE after (malloc/arena.c).
ARENA_SIZE = 64 << 20


def rollup(pid):
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2] == "kB":
                fields[parts[0].rstrip(":")] = int(parts[1])
    return fields


def mappings(pid):
    maps, current = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and "-" in parts[0] and ":" in parts[3]:
                start, end = (int(x, 16) for x in parts[0].split("-"))
                current = {"start": start, "end": end, "perms": parts[1],
                           "name": " ".join(parts[5:]) if len(parts) > 5 else ""}
                maps.append(current)
            elif current is not None and len(parts) == 3 and parts[2] == "kB":
                current[parts[0].rstrip(":")] = int(parts[1])
    return maps


def thread_stack_pointers(pid):
    """TID -> (thread name, stack pointer) for threads blocked in a system call."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                parts = f.read().split()
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if len(parts) >= 8:
            out[int(tid)] = (name, int(parts[-2], 16))
    return out


def breakdown(pid):
    """(part, rss_kb, anon_kb, private_dirty_kb) per part, parts named as in the module doc."""
    maps = mappings(pid)
    stacks = {}
    for tid, (name, sp) in thread_stack_pointers(pid).items():
        for m in maps:
            if m["start"] <= sp < m["end"]:
                stacks[m["start"]] = f"stack of thread {tid} ({name})" + (" [main]" if tid == pid else "")
    parts = {}
    for i, m in enumerate(maps):
        name, perms = m["name"], m["perms"]
        following = maps[i + 1] if i + 1 < len(maps) else None
        if m["start"] in stacks:
            part = stacks[m["start"]]
        elif name.startswith("/"):
            kind = "text" if "x" in perms else "data" if "w" in perms else "read-only"
            part = f"{os.path.basename(name)} {kind}"
        elif name == "[heap]":
            part = "heap (main arena)"
        elif name in ("[stack]",):
            part = "stack of the main thread"
        elif name.startswith("["):
            part = name
        elif (perms.startswith("rw") and m["start"] % ARENA_SIZE == 0 and following is not None
              and following["start"] == m["end"] and following["perms"].startswith("---")
              and following["end"] - m["start"] == ARENA_SIZE):
            part = f"malloc arena at {m['start']:x}"
        elif perms.startswith("---"):
            continue
        else:
            part = "other anonymous"
        rss, anon, dirty = parts.get(part, (0, 0, 0))
        parts[part] = (rss + m.get("Rss", 0), anon + m.get("Anonymous", 0), dirty + m.get("Private_Dirty", 0))
    return parts


def table(pid):
    parts = breakdown(pid)
    total = sum(v[0] for v in parts.values())
    lines = [f"{'kB rss':>8} {'anon':>6} {'pdirty':>6}  part (total {total} kB)"]
    for part, (rss, anon, dirty) in sorted(parts.items(), key=lambda kv: -kv[1][0]):
        if rss:
            lines.append(f"{rss:8d} {anon:6d} {dirty:6d}  {part}")
    return lines


if __name__ == "__main__":
    print("\n".join(table(int(sys.argv[1]))))
