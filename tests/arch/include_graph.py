#!/usr/bin/env python3
"""The include-graph check (docs/architecture rules, issue 13).

Reads every `#include "..."` line of the C++ files under the source folders
and fails on:
  - layer: a file in model/ including anything outside model/ (the model is
    the kernel's twin and calls out only through its environment);
  - backend: any include from sim/ to real/ or from real/ to sim/ (both
    implement the shared run layer; neither knows the other);
  - upward: a file including a folder of a higher layer (docs/architecture.md:
    model < machine < run < sim, real < probe < compare < cli < bench, tests);
  - machine: inside sim/, one of its three machines (timed/, the timed
    simulator; explore/, the explorer; step/, the step environment)
    including another, or sim/'s shared parts (kernel/, strategies/,
    schedule, rng, the trace format) including any of them: each machine
    stands on the shared parts only;
  - cycle: files that include each other, directly or through others.

Violations are printed one per line. Lines listed in an allow-list file
(optional; the tree needs none today) are known and tolerated for now; an
allow-listed line that is no longer a violation fails too, so that whoever
fixes one deletes its line.

Usage: include_graph.py ROOT [ALLOWLIST]; exit status 0 if clean, 1 if not,
2 on bad input.
"""
import os
import re
import sys

SOURCE_DIRS = ("model", "machine", "run", "sim", "real", "compare", "probe", "cli", "bench", "tests")
# Each folder's layer: includes go to the same layer or below.
LAYER = {"model": 0, "machine": 1, "run": 2, "sim": 3, "real": 3, "probe": 4, "compare": 5, "cli": 6,
         "bench": 7, "tests": 7}
# sim/'s three machines: none includes another (docs/architecture.md).
SIM_MACHINES = ("timed", "explore", "step")
EXTENSIONS = (".h", ".hpp", ".cpp", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def source_files(root):
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(EXTENSIONS):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def resolve(root, includer, target):
    """The included file, relative to the root: the project includes from the
    root ("model/core.h"); a name next to the includer is tried second."""
    for candidate in (target, os.path.join(os.path.dirname(includer), target)):
        path = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


def include_graph(root):
    graph = {}
    for path in source_files(root):
        edges = graph.setdefault(path, [])
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if m:
                    target = resolve(root, path, m.group(1))
                    if target and target not in edges:
                        edges.append(target)
    return graph


def top(path):
    return path.split(os.sep, 1)[0]


def sim_machine(path):
    """Which of sim/'s machines a file belongs to, or None for sim/'s shared
    parts and everything outside sim/."""
    parts = path.split(os.sep)
    if len(parts) > 2 and parts[0] == "sim" and parts[1] in SIM_MACHINES:
        return parts[1]
    return None


def layer_violations(graph):
    out = []
    for src in sorted(graph):
        for dst in graph[src]:
            if top(src) == "model" and top(dst) != "model":
                out.append(f"layer: {src} -> {dst}")
            elif {top(src), top(dst)} == {"sim", "real"}:
                out.append(f"backend: {src} -> {dst}")
            elif LAYER.get(top(dst), 0) > LAYER.get(top(src), 0):
                out.append(f"upward: {src} -> {dst}")
            elif top(src) == "sim" and sim_machine(dst) not in (None, sim_machine(src)):
                out.append(f"machine: {src} -> {dst}")
    return out


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; components in a deterministic order."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph.get(start, [])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, []))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                comps.append(sorted(comp))
    return comps


def shortest_cycle(graph, start, members):
    """The shortest way from `start` back to itself inside `members`."""
    previous = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in graph.get(node, []):
                if child not in members:
                    continue
                if child == start:
                    path = [node]
                    while previous[path[-1]] is not None:
                        path.append(previous[path[-1]])
                    return list(reversed(path)) + [start]
                if child not in previous:
                    previous[child] = node
                    nxt.append(child)
        frontier = nxt
    return [start, start]


def cycle_violations(graph):
    out = []
    for comp in strongly_connected(graph):
        if len(comp) == 1 and comp[0] not in graph.get(comp[0], []):
            continue
        cycle = shortest_cycle(graph, comp[0], set(comp))
        line = "cycle: " + " -> ".join(cycle)
        rest = sorted(set(comp) - set(cycle))
        if rest:
            line += " (same cycle group: " + ", ".join(rest) + ")"
        out.append(line)
    return out


def read_allowlist(path):
    if not path:
        return []
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.lstrip().startswith("#")]


def main(argv):
    if len(argv) not in (2, 3) or not os.path.isdir(argv[1]):
        print("usage: include_graph.py ROOT [ALLOWLIST]", file=sys.stderr)
        return 2
    root = argv[1]
    try:
        allowed = read_allowlist(argv[2] if len(argv) == 3 else None)
    except OSError as e:
        print(f"include_graph.py: {e}", file=sys.stderr)
        return 2
    graph = include_graph(root)
    found = layer_violations(graph) + cycle_violations(graph)
    new = [v for v in found if v not in allowed]
    fixed = [a for a in allowed if a not in found]
    for v in new:
        print(v)
    for a in fixed:
        print(f"fixed, delete from the allow-list: {a}")
    tolerated = len(found) - len(new)
    print(f"include graph: {len(graph)} files, {len(new)} violations, {tolerated} allow-listed, "
          f"{len(fixed)} stale allow-list lines", file=sys.stderr)
    return 1 if new or fixed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
