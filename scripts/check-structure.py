#!/usr/bin/env python3
"""The structure rules of vmsim, checked: folders are layers (each folder's
files include only their own folder and the folders below it in LAYERS),
no include loop between files, no function over 80 lines. A file is as
long as its one concern needs (DESIGN.md): no line cap. Prints one line per breach; exits 1 if there is any."""
import os
import re
import sys

# Bottom up. A folder may include itself and any folder listed before it.
LAYERS = ["util", "trace", "sync", "locks", "uffd", "mm", "faults", "report",
          "workloads", "cli"]
# Held to the function-size rule too, above every layer (they may include any).
EXTRA = ["tests", "tests/fuzz"]
MAX_FUNC = 80

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
bad = []
graph = {}
for layer in LAYERS + EXTRA:
    d = os.path.join(root, layer)
    if not os.path.isdir(d):
        continue
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h", ".def")):
            continue
        path = f"{layer}/{f}"
        lines = open(os.path.join(d, f), encoding="utf-8").read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        graph[path] = []
        for ln in lines:
            m = inc_re.match(ln)
            if not m:
                continue
            tgt = m.group(1)
            graph[path].append(tgt)
            top = tgt.split("/")[0]
            if layer in EXTRA:
                continue
            if top not in LAYERS:
                bad.append(f"{path}: includes {tgt}, which is in no layer")
            elif LAYERS.index(top) > LAYERS.index(layer):
                bad.append(f"{path}: includes {tgt}, a layer above {layer}/")
        # Functions: a line opening with "{" at column 0 after a
        # declarator, closed by "}" at column 0 (kernel style).
        start = None
        for i, ln in enumerate(lines):
            if ln == "{" and i and lines[i - 1].rstrip().endswith(")"):
                start = i
                j = i - 1
                while j > 0 and not re.match(r"^[A-Za-z_]", lines[j]):
                    j -= 1
                name = re.findall(r"(\w+)\s*\(", lines[j])
                fname = name[0] if name else "?"
            elif ln == "}" and start is not None:
                n = i - start - 1
                if n > MAX_FUNC:
                    bad.append(f"{path}: function {fname}() is {n} lines (limit {MAX_FUNC})")
                start = None

# File-level include loops (depth-first search).
state = {}
def visit(n, stack):
    state[n] = 1
    for t in graph.get(n, []):
        if t not in graph:
            continue
        if state.get(t) == 1:
            loop = stack[stack.index(t):] + [t]
            bad.append("include loop: " + " -> ".join(loop))
        elif not state.get(t):
            visit(t, stack + [t])
    state[n] = 2
for n in graph:
    if not state.get(n):
        visit(n, [n])

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
