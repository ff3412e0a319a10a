#!/usr/bin/env python3
"""The folder dependency graph of a Swift module (default Sources/NFCBridge): folder A uses folder B
when a file of A names a type declared at the top level of a file of B (comments and string
literals left out). Prints each cycle with the files and types of its edges, then the folders in
dependency order; -v also prints every folder's uses. Exits 1 when there is a cycle.
Usage: scripts/folder-deps.py [SOURCE_DIR] [-v]   (docs/architecture.md, "Folders inside NFCBridge")"""
import os, re, sys
args = [a for a in sys.argv[1:] if a != "-v"]
root = args[0] if args else "Sources/NFCBridge"
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith(".swift"):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            folder = rel.split(os.sep)[0] if os.sep in rel else "."
            files[p] = (folder, open(p).read())
owner = {}
for p, (folder, text) in files.items():
    # only top-level declarations (no indentation)
    for m in re.finditer(r'^(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)', text, re.M):
        owner[m.group(1)] = folder
def strip(text):
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', '""', text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return text
edges = {}
for p, (folder, text) in files.items():
    for tok in set(re.findall(r'\b[A-Z]\w*\b', strip(text))):
        o = owner.get(tok)
        if o and o != folder:
            edges.setdefault((folder, o), set()).add((os.path.relpath(p, root), tok))
graph = {}
for (a, b) in edges: graph.setdefault(a, set()).add(b)
# strongly connected components (Tarjan)
index = {}; low = {}; stack = []; on = set(); sccs = []; i = [0]
def sc(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in graph.get(v, ()):
        if w not in index: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
nodes = set(f for f, _ in files.values())
for v in sorted(nodes):
    if v not in index: sc(v)
cycles = [c for c in sccs if len(c) > 1]
for c in cycles:
    print("CYCLE:", sorted(c))
    for a in sorted(c):
        for b in sorted(graph.get(a, ())):
            if b in c:
                print(f"  {a} -> {b}:", ", ".join(sorted(f"{f}:{t}" for f, t in edges[(a, b)])))
if "-v" in sys.argv:
    for a in sorted(graph): print(a, "->", sorted(graph[a]))
# topological order (sccs from Tarjan come out dependencies first)
print("ORDER (dependencies first):", " ".join("/".join(sorted(c)) for c in sccs))
print("cycles:", len(cycles))
sys.exit(1 if cycles else 0)
