#!/usr/bin/env python3
"""Prints the module circles inside each Rust crate of the workspace.

A module `a` depends on `b` when a file of `a` names `crate::b::...` (in a `use` or inline) or
`super::b::...`; a child naming `super::X` depends on its parent. A parent naming its own
children by their bare names (`mod b; use b::X;`) is not an edge: a module owns its children.
Comments are ignored. Each
strongly connected component of more than one module is a circle: the crate's module graph
does not read top-down there.

Usage: tools/module_cycles.py [CRATE_DIR ...]   (default: every workspace member)
Exit status 1 when a circle is found in a crate not listed with --allow.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def members():
    text = open(os.path.join(ROOT, "Cargo.toml")).read()
    m = re.search(r"members\s*=\s*\[([^\]]*)\]", text)
    return [s.strip().strip('"') for s in m.group(1).split(",") if s.strip()]


def module_of(src, path):
    """Module path of a file under src: lib.rs -> '', a.rs / a/mod.rs -> 'a', a/b.rs -> 'a::b'."""
    rel = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
    if rel[-1] == "mod" or (len(rel) == 1 and rel[0] in ("lib", "main")):
        rel = rel[:-1]
    return "::".join(rel)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def resolve(known, path):
    """The longest known module that prefixes `path` (a '::'-joined name)."""
    parts = path.split("::")
    for n in range(len(parts), 0, -1):
        cand = "::".join(parts[:n])
        if cand in known:
            return cand
    return None


def expand_groups(text):
    """`use crate::{a::{X, Y}, b}` -> 'crate::a::X crate::a::Y crate::b', innermost first."""
    def one(m):
        prefix, body = m.group(1), m.group(2)
        return " ".join(prefix + "::" + p.strip() for p in body.split(",") if p.strip())

    while True:
        out = re.sub(r"\b(\w+(?:::\w+)*)::\{([^{}]*)\}", one, text)
        if out == text:
            return out
        text = out


def graph(crate_dir):
    src = os.path.join(crate_dir, "src")
    files = []
    for d, _, names in os.walk(src):
        files += [os.path.join(d, n) for n in names if n.endswith(".rs")]
    mods = {module_of(src, f): f for f in files}
    known = set(mods)
    edges = {m: set() for m in known}
    for mod, f in mods.items():
        text = expand_groups(strip_comments(open(f).read()))
        here = mod.split("::") if mod else []
        for m in re.finditer(r"\b(crate|super(?:::super)*)((?:::\w+)*)", text):
            head, tail = m.group(1), m.group(2).lstrip(":")
            if head == "crate":
                base = []
            else:
                # `super` is the enclosing module, whether this file is `a/b.rs` or `a/b/mod.rs`.
                base = here[: max(len(here) - head.count("super"), 0)]
            target = "::".join(base + ([tail] if tail else []))
            target = target.replace("::::", "::").strip(":")
            t = resolve(known, target) if target else ""
            if t is None:
                t = "::".join(base)
            if t != mod and t is not None:
                # A module naming its own ancestor (lib.rs re-exports) still depends on it.
                edges[mod].add(t)
    # lib.rs re-exports everything: it is the crate's top, not a module of the graph.
    edges.pop("", None)
    for e in edges.values():
        e.discard("")
    return edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crates", nargs="*", help="crate folders (default: workspace members)")
    ap.add_argument("--allow", action="append", default=[],
                    help="a crate folder whose circles are reported but do not fail")
    args = ap.parse_args()
    crates = args.crates or members()
    failed = False
    for c in crates:
        d = os.path.join(ROOT, c)
        if not os.path.isdir(os.path.join(d, "src")):
            continue
        edges = graph(d)
        comps = sccs(edges)
        for comp in comps:
            inner = sorted(f"{a} -> {b}" for a in comp for b in edges[a] if b in comp)
            print(f"{c}: circle of {len(comp)}: {', '.join(comp)}")
            for e in inner:
                print(f"    {e}")
        if comps and c not in args.allow:
            failed = True
        if not comps:
            print(f"{c}: no circles ({len(edges)} modules)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
