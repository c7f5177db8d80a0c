#!/usr/bin/env python3
"""Fails when modules of lib/ include each other in a cycle, naming each cycle.

A module is a .c/.h pair under lib/ (lib/analysis/series.c and .h are the
module analysis/series; a header alone or a .c alone is a module too). Module
A depends on module B when a file of A has `#include "..."` of B's header.
A cycle means neither can be understood, tested or moved without the other:
shared declarations belong in a header of their own, or one side's
dependency is to be inverted (docs/ARCHITECTURE.md).

usage: scripts/check-include-cycles.py [REPO_ROOT]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def modules(lib):
    """{module name: [files]} for every .c and .h under lib."""
    mods = {}
    for folder, _, files in os.walk(lib):
        for f in files:
            if f.endswith((".c", ".h")):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, lib)[:-2]
                mods.setdefault(name, []).append(path)
    return mods


def resolve(lib, including, inc):
    """The module an include names: beside the including file, else from lib/."""
    for base in (os.path.dirname(including), lib):
        path = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(path) and path.endswith(".h"):
            rel = os.path.relpath(path, lib)
            if not rel.startswith(".."):
                return rel[:-2]
    return None  # a system header, a generated file, or a header outside lib/


def graph(lib):
    """{module: [modules it includes]} and {(a, b): 'file:line: #include "..."'}."""
    mods = modules(lib)
    edges, where = {}, {}
    for name, files in mods.items():
        deps = set()
        for path in sorted(files):
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    dep = m and resolve(lib, path, m.group(1))
                    if dep and dep != name and dep in mods:
                        deps.add(dep)
                        shown = os.path.relpath(path, os.path.dirname(lib))
                        where.setdefault((name, dep), "%s:%d: %s" % (shown, lineno, line.strip()))
        edges[name] = sorted(deps)
    return edges, where


def strong_components(edges):
    """Tarjan's algorithm, iterative: the components with more than one module."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            succ = edges[node]
            if i < len(succ):
                work.append((node, i + 1))
                nxt = succ[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def one_cycle(edges, comp):
    """A shortest cycle through the component's first module, as a path."""
    members = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in edges[node]:
            if nxt not in members:
                continue
            if nxt == start:
                path = [node]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return comp


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    lib = os.path.join(root, "lib")
    edges, where = graph(lib)
    comps = strong_components(edges)
    for comp in comps:
        cycle = one_cycle(edges, comp)
        print("include cycle between modules of lib/: %s (all modules in the knot: %s)"
              % (" -> ".join(cycle), ", ".join(comp)))
        for a, b in zip(cycle, cycle[1:]):
            print("  " + where[(a, b)])
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main())
