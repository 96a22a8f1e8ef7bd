"""The ways the model (sim/timed/qspinlock.cpp) goes through the slow path, each
a list of its accesses: every structural way with each spin at its first
load, then the spins turned wherever that adds a pair of consecutive
accesses no earlier way has."""

from .qspinlock import (CP, CPSL, EXIT, HC, N_LOCKED, N_NEXT, P_READ, P_RMW, PREFETCHW, R_NEXT, SL, SPINS, SR,
                        T_CMPXCHG, T_READ, W_PREV, X, XT)

# The hand-over wait's bound in waits (_Q_PENDING_LOOPS: 512 on x86,
# arch/x86/include/asm/qspinlock.h; the generic 1, kernel/locking/qspinlock.c,
# on arm64): a spin with more turns is no kernel path.
MAX_TURNS = {("arm64", "handover"): 1}


def spin(name, turns):
    """A spin's sites: its first load, then per turn the re-read and the
    load after the wait; turns = 0.5 stops at the re-read (it saw the
    value it waited for)."""
    load, cmpwait, again = SPINS[name]
    out = [load]
    for _ in range(int(turns)):
        out += [cmpwait, again]
    if turns != int(turns):
        out.append(cmpwait)
    return out


def structural_ways(arch):
    """Every way through the slow path the model takes (sim/timed/qspinlock.cpp),
    each spin at its first load. Yields (name, sites)."""
    pend = [P_RMW, P_READ] if arch == "amd64" else [P_RMW]
    # how the slow path begins: (name, sites, where it goes: pending or queue)
    starts = [("handover", spin("handover", 0), "pending"), ("handover", spin("handover", 0), "queue"),
              ("locked", [], "pending"), ("contended", [], "queue")]
    prefixes = []  # (name, sites up to the queue)
    for sname, sites, to in starts:
        if to == "queue":
            prefixes.append((sname, sites))
            continue
        # trylock || pending: pending won, the owner gone or still there
        yield f"{sname}-pending", sites + pend + [CPSL, EXIT]
        yield f"{sname}-pending-wait", sites + pend + spin("pending", 0) + [CPSL, EXIT]
        # a concurrent locker: undo our pending bit, or it was not ours
        prefixes.append((f"{sname}-pending-undone", sites + pend + [CP]))
        prefixes.append((f"{sname}-pending-taken", sites + pend))
    for pname, psites in prefixes:
        node = psites + [N_LOCKED, N_NEXT, T_READ]
        yield f"{pname}-trylock", node + [T_CMPXCHG, EXIT]
        for tname, tsites in (("busy", []), ("lost", [T_CMPXCHG])):
            q = node + tsites + [XT]
            for head in (False, True):
                if head:
                    base = q + [W_PREV] + spin("mcs", 0) + [R_NEXT] + spin("head", 0)
                    hname = f"{pname}-{tname}-queued"
                    # the next waiter linked in while we waited: prefetchw()
                    # it, and hand off at once
                    known = q + [W_PREV] + spin("mcs", 0) + [R_NEXT, PREFETCHW] + spin("head", 0)
                    yield f"{hname}-next-known", known + [SL, SR, EXIT]
                else:
                    base = q + spin("head", 0)
                    hname = f"{pname}-{tname}-head"
                # nobody behind: claim with the cmpxchg; it fails if someone
                # queued or set pending meanwhile; or someone is queued already
                yield f"{hname}-claim", base + [HC, EXIT]
                yield f"{hname}-claim-lost", base + [HC, SL] + spin("next", 0) + [SR, EXIT]
                yield f"{hname}-handoff", base + [SL] + spin("next", 0) + [SR, EXIT]


def with_turns(sites, which, turns):
    """The sites with the spin `which` (its first occurrence) turned."""
    load = SPINS[which][0]
    i = sites.index(load)
    return sites[:i] + spin(which, turns) + sites[i + 1:]


def ways(arch):
    """Every structural way, then a spin with a half turn (the re-read saw
    the value), one turn and two turns wherever that adds a pair of sites
    no earlier way has (the second turn: from the load after a wait back
    to the re-read)."""
    out, pairs = [], set()
    def add(name, sites, always=False):
        new = {(a, b) for a, b in zip([X] + sites, sites)} - pairs
        if not always and not new:
            return
        pairs.update(new)
        out.append((name, [X] + sites))
    base = list(structural_ways(arch))
    for name, sites in base:
        add(name, sites, always=True)
    for turns, tname in ((0.5, "recheck"), (1, "turn"), (2, "turns")):
        for name, sites in base:
            for which in SPINS:
                if SPINS[which][0] in sites and turns <= MAX_TURNS.get((arch, which), turns):
                    add(f"{name}+{which}-{tname}", with_turns(sites, which, turns))
    return out
