"""The kernel's futex selftests (tools/testing/selftests/futex/functional of
the fetched linux-source-7.2), compiled here with gcc -static so that the
guest needs no libc of its own. Built once into the kernel cache and reused."""

import os
import re

from . import children

# The Makefile's TEST_GEN_PROGS. The numa tests build without libnuma
# (LIBNUMA_VER_NO, as the Makefile does when pkg-config finds none).
PROGRAMS = [
    "futex_wait_timeout", "futex_wait_wouldblock", "futex_requeue_pi",
    "futex_requeue_pi_signal_restart", "futex_requeue_pi_mismatched_ops",
    "futex_wait_uninitialized_heap", "futex_wait_private_mapped_file",
    "futex_wait", "futex_requeue", "futex_priv_hash", "futex_numa_mpol",
    "futex_waitv", "futex_numa", "robust_list",
]
# What --selftests runs unless told otherwise: the tests a pivot can
# disturb, as issue 29 and `futexsim selftests` name them.
DEFAULT = ["futex_requeue", "futex_wait_timeout", "futex_wait_wouldblock", "futex_requeue_pi"]


def parse_names(spec):
    """--selftests' value: 'all' or a comma-separated list of PROGRAMS, each
    once. ValueError names what is wrong (the tools add the flag)."""
    if spec == "all":
        return list(PROGRAMS)
    names = spec.split(",")
    for n in names:
        if n not in PROGRAMS:
            raise ValueError(f"unknown selftest {n!r} (known: {', '.join(PROGRAMS)}, or all)")
    if len(set(names)) != len(names):
        raise ValueError(f"a selftest is named twice in {spec!r}")
    return names


def named_in(commands):
    """The selftests a --run command calls by name: they go into the
    initramfs as --selftests' would (e.g. a loop running one four times)."""
    return [n for n in PROGRAMS if any(re.search(rf"\b{n}\b", c) for c in commands)]


def source_dir(cache):
    return os.path.join(cache, "linux-source-7.2", "tools", "testing", "selftests", "futex")


def build(cache, log):
    """Compiles every program not yet in cache/futex-selftests; returns
    {name: path}. Raises RuntimeError with gcc's first error line."""
    src = os.path.join(source_dir(cache), "functional")
    out_dir = os.path.join(cache, "futex-selftests")
    os.makedirs(out_dir, exist_ok=True)
    built = {}
    for name in PROGRAMS:
        out = os.path.join(out_dir, name)
        c_file = os.path.join(src, name + ".c")
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(c_file):
            log(f"vm: compiling selftest {name} (gcc -static)")
            # The Makefile's flags; the uapi headers are this machine's
            # (linux-libc-dev): the tests define what older headers lack.
            cmd = ["gcc", "-static", "-O2", "-pthread", "-D_FILE_OFFSET_BITS=64",
                   "-D_TIME_BITS=64", "-I../include", "-I../../", "-DLIBNUMA_VER_NO=1",
                   name + ".c", "-o", out + ".tmp", "-lpthread", "-lrt"]  # __FILE__: the name alone
            r = children.run(cmd, cwd=src, capture_output=True, text=True)
            if r.returncode != 0:
                first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:200])
                raise RuntimeError(f"compiling selftest {name} failed: {first}")
            os.replace(out + ".tmp", out)
        built[name] = out
    return built
