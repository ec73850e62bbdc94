#!/usr/bin/env python3
"""Import circles in the library (src/, without the command-line tool and unit tests).

Module A depends on B when A's code names an item defined in B, by `use` or by a path
(`crate::..`, `super::..`, a child's `x::..`), each item counted where it is defined, not
where it is re-exported; lines that only declare or re-export (`mod x;`, `pub use ..`) are
not dependencies, and neither is a child reading its parent's vocabulary. Between two
siblings (two modules under one parent, each with everything below it) a dependency either
way counts once; a cycle among siblings is an import circle. Glob imports are not followed,
so the library keeps none outside its unit tests. Exits 1 on a circle (.ci/run runs it).
"""
import os, re, sys, collections
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
files = {}
for dp, dn, fn in os.walk(root):
    if "/bin" in dp: continue
    for f in fn:
        if not f.endswith(".rs"): continue
        p = os.path.join(dp, f)
        rel = os.path.relpath(p, root)[:-3]
        parts = rel.split("/")
        if parts[-1] in ("mod", "lib"): parts = parts[:-1]
        if "tests" in parts or (parts and parts[-1].endswith("tests")): continue
        files["::".join(parts) if parts else "crate"] = open(p).read()
mods = set(files)
def clean(src):
    i = src.find("#[cfg(test)]\nmod tests {")
    if i >= 0: src = src[:i]
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(?:\\.|[^"\\])*"', '""', src)
    return src
defs = collections.defaultdict(set)
for mod, src in files.items():
    for m in re.finditer(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:fn|struct|enum|trait|const|type|static|macro_rules!)\s+(\w+)", clean(src), re.M):
        defs[m.group(1)].add(mod)
    for m in re.finditer(r"macro_rules!\s*(\w+)", src): defs[m.group(1)].add(mod)
def target(segs, cur):
    # segs: absolute module path segments followed by an item (maybe)
    for n in range(len(segs), 0, -1):
        m = "::".join(segs[:n])
        if m in mods:
            rest = segs[n:]
            if rest:
                item = rest[0]
                owners = [o for o in defs.get(item, ()) if o == m or o.startswith(m + "::")]
                if len(owners) == 1: return owners[0]
                if m in defs.get(item, ()): return m
            return m
    return None
edges = collections.defaultdict(set)
for mod, raw in files.items():
    src = clean(raw)
    cur = mod.split("::") if mod != "crate" else []
    body = re.sub(r"(?m)^\s*pub(\([^)]*\))? use [^;]*;", "", src)
    body = re.sub(r"(?m)^\s*(pub(\([^)]*\))?\s+)?mod \w+;", "", body)
    uses = []
    # expand use trees: use crate::a::{b, c::d}; and paths in code
    for m in re.finditer(r"\buse\s+([^;]+);", body):
        tree = m.group(1)
        def expand(prefix, t):
            t = t.strip()
            if t.startswith("{") and t.endswith("}"):
                depth=0; parts=[]; curp=""
                for ch in t[1:-1]:
                    if ch=="{": depth+=1
                    if ch=="}": depth-=1
                    if ch=="," and depth==0: parts.append(curp); curp=""
                    else: curp+=ch
                parts.append(curp)
                for p in parts:
                    if p.strip(): expand(prefix, p)
                return
            i = t.find("::{")
            if i >= 0:
                expand(prefix + t[:i].split("::"), t[i+2:]); return
            segs = prefix + [s.strip() for s in t.split(" as ")[0].split("::")]
            uses.append(segs)
        expand([], tree)
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", body):
        uses.append(m.group(1).split("::"))
    for m in re.finditer(r"(?<![:\w])(\w+)::(\w+)", body):
        child = "::".join(cur + [m.group(1)])
        if child in mods: uses.append(["self", m.group(1), m.group(2)])
    for segs in uses:
        if not segs: continue
        base = list(cur)
        if segs[0] == "crate": segs = segs[1:]; base = []
        else:
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
        if not segs or segs[-1] == "*": continue
        t = target(base + segs, cur)
        if t and t != mod:
            edges[mod].add(t)
index = {}; low = {}; stack = []; on = set(); sccs = []; counter = [0]
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
for v in sorted(mods):
    if v not in index: strong(v)
if len(sys.argv) > 1:
    for a in sorted(edges):
        if a.startswith(sys.argv[1]): print(a, "->", sorted(edges[a]))

# Sibling-level cycles: an edge between two modules counts between the two siblings under
# their nearest common parent (a subtree is one node to its siblings); edges between a
# module and its own ancestor are left out (a child reads its parent's vocabulary).
sib = collections.defaultdict(set)
for a, bs in edges.items():
    for b in bs:
        pa = a.split("::") if a != "crate" else []
        pb = b.split("::") if b != "crate" else []
        k = 0
        while k < min(len(pa), len(pb)) and pa[k] == pb[k]: k += 1
        if k == len(pa) or k == len(pb): continue
        sib["::".join(pa[:k+1])].add("::".join(pb[:k+1]))
index.clear(); low.clear(); stack.clear(); on.clear(); sccs.clear(); counter[0]=0
edges_bak = edges
edges = sib
nodes = set(sib) | {x for v in sib.values() for x in v}
for v in sorted(nodes):
    if v not in index: strong(v)
print(f"{len(mods)} modules, import circles between siblings: {len(sccs)}")
for c in sccs:
    print(" ", c)
    for a in c:
        print("     ", a, "->", sorted(x for x in sib[a] if x in c))
# Globs that could hide an edge: of the parent, or of a module but a constants one.
globs = [
    m
    for m, src in files.items()
    if not m.endswith("tests")
    for g in re.findall(r"(?m)^use ((?:super|crate)(?:::\w+)*)::\*;", clean(src))
    if not g.endswith("tuning")
]
if globs:
    print("glob imports (not followed):", globs)
sys.exit(1 if sccs or globs else 0)
