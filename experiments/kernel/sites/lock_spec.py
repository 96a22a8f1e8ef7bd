"""A way through the slow path as a path spec count_sites walks (its marks,
and its branch decisions with their reasons), per build; lock-fast; and
the futex_ref_get() retry loop's turn, copied from paths.json's path."""

import copy

from .common import Bad
from .qspinlock import EXIT, R, X, key_of, steps
from .qspinlock_amd64 import AMD64, M_AMD64
from .qspinlock_arm64 import ARM64, F, M_ARM64

# Per build: the functions the walk enters, the preset CPUs it is walked for,
# the sites' instructions and the decisions between them, lock-paths.json's own
# CPU feature decisions, and the retry loop's extra decisions (futex_ref_get()).
BUILDS = {
    "amd64": {
        "functions": [R, "native_queued_spin_lock_slowpath"],
        "cpus": ["xeon-6975p", "epyc-9r45"],
        "marks": dict(M_AMD64),
        "steps": steps(AMD64),
        "features": {c: {"X86_FEATURE_3DNOWPREFETCH": {
            "set": True, "why": "PREFETCHW is implemented (CPUID 0x80000001 ECX[8]: Intel since Broadwell, every Zen): "
                                "prefetchw()'s alternative (arch/x86/include/asm/processor.h:644) is the prefetchw, "
                                "one instruction as the image's prefetcht0"}} for c in ("xeon-6975p", "epyc-9r45")},
        # futex_ref_get()'s cmpxchg fails once: jne back to the loop's test, then the cmpxchg again
        "retry": [("futex_ref_get", "atomic64_64.h:101", ["taken"], "the cmpxchg fails (the count moved): retry"),
                  ("futex_ref_get", "atomic-arch-fallback.h:4555", ["fall"], "the count seen is nonzero: try again")],
    },
    "arm64": {
        "functions": [R, F],
        "cpus": ["graviton4"],
        "marks": dict(M_ARM64),
        "steps": steps(ARM64),
        "features": {},
        "retry": [("futex_ref_get", "atomic-arch-fallback.h:4266", ["taken"], "the cas fails (the count moved): retry"),
                  ("futex_ref_get", "atomic-arch-fallback.h:4555", ["fall"], "the count seen is nonzero: try again"),
                  ("futex_ref_get", "alternative-macros.h:232", ["nop"], "the LSE cas again (the branch to LL/SC a nop)")],
    },
}


def path_for(arch, name, sites):
    b = BUILDS[arch]
    steps = b["steps"]
    branches, why, marks = {}, {}, []
    seq = ["entry"] + sites
    for a, c in zip(seq, seq[1:]):
        key = (key_of(a), key_of(c))
        if key not in steps:
            raise Bad(f"{arch}: no step from {a} to {c} (way {name})")
        for fn, line, way, reason in steps[key]:
            branches.setdefault(fn, {}).setdefault(line, []).append(way)
            why.setdefault(fn, {}).setdefault(line, reason)
        if c != EXIT:
            m = b["marks"][c]
            marks.append(dict(function=m[0], at=m[1], insn=m[2], site=c))
    return {"name": f"lock-{name}", "arch": arch, "cpus": b["cpus"],
            "about": f"the bucket lock's slow path: {name} (experiments/kernel/lock_paths)",
            "functions": b["functions"], "marks": marks, "branches": branches, "why": why}


def fast_path(arch):
    return path_for(arch, "fast", [X, EXIT])


def retry_path(arch, spec):
    """paths.json's wake-nowaiters-atomic for `arch`, its futex_ref_get()
    cmpxchg failing once: one more mark at the cmpxchg, the retry's
    decisions before the original's."""
    src = [p for p in spec["paths"] if p["name"] == "wake-nowaiters-atomic" and p.get("arch") == arch]
    if not src:
        raise Bad(f"no wake-nowaiters-atomic path for {arch} in the paths spec")
    p = copy.deepcopy(src[0])
    r = BUILDS[arch]["retry"]
    mark = [m for m in p["marks"] if m["site"].startswith("futex_ref_get:atomic_long_try_cmpxchg")]
    if len(mark) != 1:
        raise Bad(f"{arch}: wake-nowaiters-atomic has no single futex_ref_get cmpxchg mark")
    i = p["marks"].index(mark[0])
    p["marks"].insert(i + 1, dict(mark[0]))
    for fn, line, ways_, _ in r:
        p.setdefault("branches", {}).setdefault(fn, {})
        p["branches"][fn][line] = ways_ + p["branches"][fn].get(line, [])
    p["name"] = "loop-futex-ref-get-retry"
    p["about"] = ("FUTEX_WAKE_PRIVATE without waiters in FR_ATOMIC (wake-nowaiters-atomic) whose futex_ref_get() "
                  "cmpxchg fails once and is retried: the segment from the cmpxchg back to it is one turn of "
                  "the retry loop (experiments/kernel/lock_paths; " +
                  "; ".join(f"{fn} {line}: {why}" for fn, line, _, why in r) + ")")
    return p
