"""What a futex selftest printed in the guest (TAP lines from the kselftest
harness and from ksft_test_result_*(), the harness's "Expected" lines), and
what `futexsim selftests` printed for the model, each as data."""

import re

TAP = re.compile(r"^(not )?ok (\d+) (.*?)(?: # (.*))?$")
# kselftest_harness.h: "<file>:<line>:<test>:Expected <a> (<va>) == <b> (<vb>)"
# (__FILE__ is the path the test was compiled from.)
EXPECTED = re.compile(r"^#?\s*\S+?:\d+:(\w+):Expected (.+) \((-?\d+)\) == (.+) \((-?\d+)\)$")
# busybox timeout ends the command with SIGTERM: 143 (GNU timeout: 124).
TIMED_OUT = (124, 143)
TIMEOUT = re.compile(r"^#\s*(\S+): Test terminated by timeout")


def parse(test, lines, rc):
    """One run of one selftest program: its TAP checks in order
    ([name, passed]), the failed expectations ({case, call, expected, got})
    and timeouts. `test` is the program's name; rc its exit status (143 or 124:
    ended by the guest's timeout)."""
    checks, failed, timeouts = [], [], []
    for line in lines:
        line = line.rstrip()
        m = TAP.match(line)
        if m:
            # "ok N - name" and "ok N name" are both TAP.
            checks.append([m.group(3).lstrip("- ").strip(), m.group(1) is None])
            continue
        m = EXPECTED.match(line)
        if m:
            failed.append({"case": m.group(1), "call": m.group(4).strip(), "expected": int(m.group(3)),
                           "got": int(m.group(5))})
            continue
        m = TIMEOUT.match(line)
        if m:
            timeouts.append(m.group(1))
    return {"test": test, "rc": rc, "checks": checks, "failed": failed, "timeouts": timeouts,
            "ended_by_timeout": rc in TIMED_OUT}


def requeue_counts(run, case):
    """futex_requeue's case in one run: 'pass'; 'hung' or 'not run'; or
    each call whose expectation failed with what it returned and, in
    brackets, what the test expected (the harness prints only those)."""
    mine = [f for f in run["failed"] if f["case"] == case]
    named = [c for c in run["checks"] if c[0].endswith(case)]
    if not named and not mine:
        return "hung" if run["ended_by_timeout"] else "not run"
    if named and named[-1][1] and not mine:
        return "pass"
    if not mine:
        return "fail"
    return " / ".join(f"{call_name(f['call'])} {f['got']} ({f['expected']})" for f in mine)


def call_name(call):
    """'futex_cmp_requeue(f1, 0, &f2, 3, 7, 0)' -> 'cmp_requeue'."""
    name = call.split("(", 1)[0].strip()
    return name[len("futex_"):] if name.startswith("futex_") else name


MODEL_LINE = re.compile(r"^policy=\S+ (\S+) (?:'([^']*)'|(\S+)) keys=(\S+) passed=(\d+)/(\d+) returned: (.*?)"
                        r"(?: longest=\S+)?$")


def parse_model(text):
    """`futexsim selftests` lines -> [{test, case, keys, passed, runs, returned}]."""
    out = []
    for line in text.splitlines():
        m = MODEL_LINE.match(line.strip())
        if m:
            out.append({"test": m.group(1), "case": m.group(2) or m.group(3), "keys": m.group(4),
                        "passed": int(m.group(5)), "runs": int(m.group(6)), "returned": m.group(7)})
    return out
