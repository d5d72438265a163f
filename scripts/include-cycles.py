#!/usr/bin/env python3
"""Prints the circles of the include graph of the C sources, and exits 1 when there is one.

    scripts/include-cycles.py [--folders] [--calls | --obj DIR] [DIR ...]
                                                  (default: webhook certs tools)

A node is a module: a .c file and the .h of the same name are one (handlers/registry), and an
_int.h header belongs to the module it holds the internals of (kube/cluster_int.h to
kube/cluster; handlers/pub/pub_int.h to handlers/pub/pub; gocompat/regex/regex_int.h, in the
folder of its module's name, to gocompat/regex). An edge goes from a module to each project header one of its files
includes ("handlers/handler.h" from webhook/, "certs/env.h" from the top). A circle is a set of
modules that reach each other through their includes, printed one per line as
`a -> b -> ... -> a`. With --folders the nodes are folders instead (handlers/pod,
handlers/pub, ...): a frame and the features it lists reach each other there by design (the
Pod steps implement handlers/pod/step.h, handlers/pod/pipeline.c lists them), so that view is
for reading, not a check. With --calls (the objects of build/obj) or --obj DIR (of another
build) the edges are uses instead: a module references a function or object another one's
object file defines (nm), which shows the circles of calls that no include reveals. The
include graph is part of make check-src."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """handlers/registry for webhook/handlers/registry.c and .h; certs/env for certs/env.h."""
    rel = os.path.relpath(path, ROOT)
    if rel.startswith("webhook" + os.sep):
        rel = rel[len("webhook") + 1:]
    return os.path.splitext(rel)[0]


def owner(module):
    """The module an _int.h header holds the internals of (kube/cluster for kube/cluster_int):
    they are one node, since the internals extend that module's contract for its folder."""
    if not module.endswith("_int"):
        return module
    module = module[:-len("_int")]
    # gocompat/regex/regex_int.h: the internals of gocompat/regex, kept in the folder of that
    # name beside it with the files that implement them
    folder, base = os.path.split(module)
    return folder if os.path.basename(folder) == base else module


def uses(modules, objdir):
    """Edges of use, from the object files of a build (nm): module -> the module whose object
    defines a symbol it references."""
    import subprocess
    defined, wanted = {}, {}
    for m, paths in modules.items():
        for p in paths:
            if not p.endswith(".c"):
                continue
            obj = os.path.join(objdir, os.path.relpath(p, ROOT))[:-2] + ".o"
            if not os.path.exists(obj):
                sys.exit("include-cycles: no %s (build first, or name the build with --obj DIR)"
                         % obj)
            out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDRBC":
                    defined.setdefault(parts[2], m)
                elif len(parts) == 2 and parts[0] == "U":
                    wanted.setdefault(m, set()).add(parts[1])
    edges = {}
    for m, names in wanted.items():
        for n in names:
            t = defined.get(n)
            if t and t != m:
                edges.setdefault(m, set()).add(t)
    return edges


def graph(dirs, folders, objdir=None):
    modules = {}
    for d in dirs:
        for base, _, names in os.walk(os.path.join(ROOT, d)):
            for n in names:
                if n.endswith((".c", ".h")):
                    p = os.path.join(base, n)
                    modules.setdefault(owner(module_of(p)), []).append(p)
    edges = {}
    for m, paths in modules.items():
        for p in paths:
            with open(p, encoding="utf-8", errors="replace") as fh:
                for inc in INCLUDE.findall(fh.read()):
                    target = owner(os.path.splitext(inc)[0])
                    if target in modules and target != m:
                        edges.setdefault(m, set()).add(target)
    if objdir:
        edges = uses(modules, objdir)
    if not folders:
        return edges
    fedges = {}
    for m, targets in edges.items():
        for t in targets:
            a, b = os.path.dirname(m), os.path.dirname(t)
            if a != b:
                fedges.setdefault(a, set()).add(b)
    return fedges


def circles(edges):
    """The strongly connected components with more than one node (Tarjan), each as one
    circle through all of them when there is one, else as the component's nodes."""
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
    return [path_through(c, edges) for c in out]


def path_through(comp, edges):
    """A shortest circle from the component's first node back to itself."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main(argv):
    folders = "--folders" in argv
    objdir = None
    if "--calls" in argv:
        objdir = os.path.join(ROOT, "build", "obj")
    if "--obj" in argv:
        objdir = os.path.abspath(argv[argv.index("--obj") + 1])
        argv = argv[:argv.index("--obj")] + argv[argv.index("--obj") + 2:]
    dirs = [a for a in argv if not a.startswith("--")] or ["webhook", "certs", "tools"]
    found = circles(graph(dirs, folders, objdir))
    for c in found:
        print(" -> ".join(c))
    if found:
        print("include-cycles: %d circle%s" % (len(found), "" if len(found) == 1 else "s"),
              file=sys.stderr)
    return 1 if found and not folders else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
