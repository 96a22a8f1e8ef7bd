"""The committed table: every record experiments/vm/beside wrote, the
guest's functional results beside the model's, row by row, in Markdown."""

import collections
import json
import os

from . import selftest_output

BEGIN = "<!-- beside-table: begin (experiments/vm/beside --update-doc docs/vm.md) -->"
END = "<!-- beside-table: end -->"
POLICY_ORDER = {"stock": 0, "wait-for-new": 1, "rwsem-gate-v1": 2, "rwsem-gate": 3}


def load(directory):
    records = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            with open(os.path.join(directory, name)) as f:
                records.append(json.load(f))
    records.sort(key=lambda r: (POLICY_ORDER.get(r["policy"], 9), r["cpus"]))
    return records


def tally(values):
    """[16, 16, 32] -> '16 x2; 32' in first-seen order."""
    counts = collections.Counter(values)
    order = list(dict.fromkeys(values))
    return "; ".join(f"{v} x{counts[v]}" if counts[v] > 1 else f"{v}" for v in order)


def unreported(rec):
    """What a command the guest never reported is shown as: the guest's
    panic when it had one."""
    panic = any("panicked" in n for n in rec.get("guest_notes", []))
    return "guest panicked" if panic else "no report"


def real_slots(run, rec):
    if run.get("missing"):
        return unreported(rec)
    if run.get("rc") in selftest_output.TIMED_OUT:
        return "hung"
    r = run["result"]
    return str(r["slots_end"]) if "slots_end" in r else "error"


UNREPORTED = ("no report", "guest panicked")


def agree(real, model_values):
    """Over the runs the guest reported: '-' when it reported none."""
    seen = [v for v in real if v not in UNREPORTED]
    off = [v for v in seen if v not in model_values]
    if not seen:
        return "-"
    return "yes" if not off else f"**no, in {len(off)} of {len(seen)}**"


def run_rows(rec):
    guest = f"{rec['cpus']} vCPUs"
    rows = []
    groups = collections.OrderedDict()
    for run in rec["real"]:
        if run["kind"] == "run":
            groups.setdefault((run["workload"], run["threads"], run["seconds"]), []).append(real_slots(run, rec))
    for m in rec["model"]["runs"]:
        key = (m["workload"], m["threads"], m["seconds"])
        real = groups.get(key, [])
        model = [str(x["slots_end"]) for x in m["runs"]]
        outcomes = collections.Counter(x["outcome"] for x in m["runs"])
        shown = ", ".join(f"{o} {n}" for o, n in sorted(outcomes.items()))
        rows.append(f"| {guest} | {rec['policy']} | {m['workload']} | {m['threads']} | {m['seconds']:g} | "
                    f"{tally(real)} | {tally(model)} ({shown}) | {agree(real, set(model))} |")
    return rows


def real_selftest_runs(rec, test):
    return [r for r in rec["real"] if r["kind"] == "selftest" and r["test"] == test and not r.get("missing")]


def missing_selftest_runs(rec, test):
    return sum(1 for r in rec["real"] if r["kind"] == "selftest" and r["test"] == test and r.get("missing"))


def checks_summary(runs, rec, test):
    """'all 9 ok on 4 of 4' or which checks failed in how many runs."""
    missing = missing_selftest_runs(rec, test)
    if not runs:
        return unreported(rec), None
    bad = []
    for r in runs:
        failing = [c[0] for c in r["cases"]["checks"] if not c[1]]
        if r["cases"]["ended_by_timeout"]:
            failing.append("hung after " + (r["cases"]["checks"][-1][0] if r["cases"]["checks"] else "start"))
        elif r["rc"] != 0 and not failing:
            failing.append(f"exit status {r['rc']}")
        bad.append(failing)
    ok = sum(1 for b in bad if not b)
    # The checks a whole run reports (a run cut short reports fewer).
    whole = [len(r["cases"]["checks"]) for r, b in zip(runs, bad) if not b]
    text = f"all {max(whole)} ok on {ok} of {len(runs)}" if whole else f"all ok on 0 of {len(runs)}"
    fails = collections.Counter(f for b in bad for f in b)
    if fails:
        text += "; failed: " + ", ".join(f"{name} ({n})" for name, n in fails.items())
    if missing:
        text += f"; {unreported(rec)} on {missing} more"
    return text, len(runs) - ok


def model_cases(rec, test):
    return [c for c in rec["model"]["selftests"]["cases"] if c["test"] == test]


def selftest_rows(rec):
    guest = f"{rec['cpus']} vCPUs"
    rows = []
    requeue = real_selftest_runs(rec, "futex_requeue")
    for case in model_cases(rec, "futex_requeue"):
        real = [selftest_output.requeue_counts(r["cases"], case["case"]) for r in requeue]
        real += [unreported(rec)] * missing_selftest_runs(rec, "futex_requeue")
        model_ok = case["passed"] == case["runs"]
        seen = [v for v in real if v not in UNREPORTED]
        off = sum(1 for v in seen if (v == "pass") != model_ok)
        verdict = "-" if not seen else "yes" if not off else f"**no, in {off} of {len(seen)}**"
        rows.append(f"| {guest} | {rec['policy']} | futex_requeue {case['case']} | {tally(real)} | "
                    f"passed {case['passed']}/{case['runs']}, returned {case['returned']} | {verdict} |")
    for test in ("futex_wait_timeout", "futex_wait_wouldblock"):
        text, failed = checks_summary(real_selftest_runs(rec, test), rec, test)
        cases = model_cases(rec, test)
        model_failed = any(c["passed"] != c["runs"] for c in cases)
        model_text = "; ".join(f"{c['case']}: passed {c['passed']}/{c['runs']}, returned {c['returned']}"
                               for c in cases)
        if failed is None:
            verdict = "-"
        elif (failed == 0) != model_failed:
            verdict = "yes"
        else:
            verdict = f"**no, in {failed} of {len(real_selftest_runs(rec, test))}**" if failed else "**no**"
        rows.append(f"| {guest} | {rec['policy']} | {test} | {text} | {model_text} | {verdict} |")
    pi_runs = real_selftest_runs(rec, "futex_requeue_pi")
    variants = {c["case"]: c for c in model_cases(rec, "futex_requeue_pi") if c["case"].startswith("t_")}
    if variants:
        return rows + requeue_pi_rows(rec, guest, pi_runs, variants)
    # A record whose model side predates the PI variants: `futexsim
    # selftests` had only the owner variants' wake-up handshake (no PI),
    # so it is compared with those.
    text, _ = checks_summary(pi_runs, rec, "futex_requeue_pi")
    cases = model_cases(rec, "futex_requeue_pi")
    if not cases:
        rows.append(f"| {guest} | {rec['policy']} | futex_requeue_pi | {text} | not in futexsim selftests (PI) | - |")
        return rows
    owner_failed = sum(1 for r in pi_runs if any(not c[1] and "owner" in c[0] for c in r["cases"]["checks"]))
    other_failed = sum(1 for r in pi_runs if any(not c[1] and "owner" not in c[0] for c in r["cases"]["checks"])
                       or r["cases"]["ended_by_timeout"])
    c = cases[0]
    model_failed = c["passed"] != c["runs"]
    if not pi_runs:
        verdict = "-"
    elif other_failed:
        verdict = f"**no: other variants failed or hung in {other_failed} of {len(pi_runs)} (PI: not in futexsim selftests)**"
    elif (owner_failed > 0) == model_failed:
        verdict = "yes"
    else:
        verdict = f"**no, owner variants failed in {owner_failed} of {len(pi_runs)}**"
    rows.append(f"| {guest} | {rec['policy']} | futex_requeue_pi | {text} | {c['case']}: passed "
                f"{c['passed']}/{c['runs']}, returned {c['returned']} | {verdict} |")
    return rows


# futex_requeue_pi's 24 variants in the harness's order
# (FIXTURE_VARIANT_ADD_TIMEOUT(0), (5000), (500000), (2000000000)).
REQUEUE_PI_VARIANTS = [f"t_{t}{v}" for t in (0, 5000, 500000, 2000000000)
                       for v in ("", "_broadcast", "_broadcast_locked", "_broadcast_owner", "_locked", "_owner")]


def requeue_pi_failures(run, order):
    """The harness variants ("t_0_owner") a run of futex_requeue_pi failed,
    the one a hang cut short included (the next after its last check, in
    `order`, the harness's)."""
    name = lambda check: check.split(".")[1] if check.count(".") >= 2 else check  # noqa: E731
    failed = {name(c[0]) for c in run["cases"]["checks"] if not c[1]}
    if run["cases"]["ended_by_timeout"] or (run["rc"] != 0 and not failed):
        done = [name(c[0]) for c in run["cases"]["checks"]]
        rest = [v for v in order if v not in done]
        failed.add(rest[0] if rest else "?")
    return failed


def requeue_pi_rows(rec, guest, runs, variants):
    """futex_requeue_pi against the model's PI variants, the six untimed
    ones and the 18 timed ones each variant by variant; a record whose
    model side predates the timed ones (`futexsim selftests` ran only the
    untimed six) shows the timed ones as the guest's alone."""
    order = REQUEUE_PI_VARIANTS
    failures = [requeue_pi_failures(r, order) for r in runs]
    rows = []
    for timed in (False, True):
        names = [v for v in order if v.startswith("t_0") != timed]
        label = "timed variants" if timed else "untimed (PI)"
        bad = collections.Counter(v for f in failures for v in f if v in names)
        ok = sum(1 for f in failures if not any(v in names for v in f))
        if not runs:
            real = unreported(rec)
        else:
            real = f"all {len(names)} ok on {ok} of {len(runs)}"
            if bad:
                # In the harness's order: `bad` is filled from sets, whose
                # order changes with the interpreter's string hashing.
                real += "; failed or hung: " + ", ".join(f"{v} ({bad[v]})" for v in names if bad[v])
        model_side = {v: c for v, c in variants.items() if v in names}
        if not model_side:
            rows.append(f"| {guest} | {rec['policy']} | futex_requeue_pi, {label} | {real} | "
                        f"not modelled (no timeouts on the model's PI sleeps when this was recorded) | - |")
            continue
        model_bad = {v: c for v, c in model_side.items() if c["passed"] != c["runs"]}
        model = (f"all {len(model_side)} passed "
                 f"{min(c['passed'] for c in model_side.values())}/{next(iter(model_side.values()))['runs']}")
        if model_bad:
            model = "; ".join(f"{v}: passed {c['passed']}/{c['runs']}, {c['returned']}" for v, c in model_bad.items())
        if not runs:
            verdict = "-"
        else:
            off = sorted(v for v in model_side if (bad[v] > 0) != (v in model_bad))
            verdict = "yes" if not off else "**no: " + ", ".join(
                f"{v} ({'guest' if bad[v] else 'model'} only)" for v in off) + "**"
        rows.append(f"| {guest} | {rec['policy']} | futex_requeue_pi, {label} | {real} | {model} | {verdict} |")
    return rows


# The selftests beyond the four the model runs (`--selftests all`), and what
# the model has of each (docs/kernel-map.md, "Left out").
NOT_IN_MODEL = {
    "futex_requeue_pi_signal_restart": "none: a signal during a requeue-PI wait (no signals on the model's PI sleeps)",
    "futex_requeue_pi_mismatched_ops": "none: FUTEX_WAIT_REQUEUE_PI met by plain FUTEX_CMP_REQUEUE (no case mixes "
                                       "PI and plain calls on one word)",
    "futex_wait_uninitialized_heap": "none: a wait on memory never touched (the model's user memory never faults)",
    "futex_wait_private_mapped_file": "none: a wait on a file mapping (the model's keys are anonymous memory)",
    "futex_wait": "none as a selftest: FUTEX_WAIT/WAKE private, shared and on a file; every workload runs the "
                  "private pair",
    "futex_waitv": "none: futex_waitv() is not modelled",
    "futex_priv_hash": "none as a selftest: the model has PR_FUTEX_HASH_SET_SLOTS, not the test's API checks",
    "futex_numa_mpol": "none: FUTEX2 NUMA and MPOL flags are not modelled",
    "futex_numa": "none: FUTEX2 NUMA is not modelled",
    "robust_list": "none: robust lists and exiting owners are not modelled",
}


def other_selftest_rows(rec):
    """The kernel's own verdicts for the selftests the model has no case of."""
    guest = f"{rec['cpus']} vCPUs"
    rows = []
    for test in rec.get("selftests", []):
        if test not in NOT_IN_MODEL:
            continue
        runs = real_selftest_runs(rec, test)
        if runs and not any(r["cases"]["checks"] for r in runs):  # prints no TAP (futex_numa)
            ok = sum(1 for r in runs if r["rc"] == 0)
            text = f"exit status 0 on {ok} of {len(runs)} (no TAP lines)"
            failed = len(runs) - ok
        else:
            text, failed = checks_summary(runs, rec, test)
        passed = "-" if failed is None else "all" if failed == 0 else f"**{len(runs) - failed} of {len(runs)}**"
        rows.append(f"| {guest} | {rec['policy']} | {test} | {text} | {passed} | {NOT_IN_MODEL[test]} |")
    return rows


def render(records):
    lines = ["Reproducers 1 (`wake-nowaiters`) and 2 (`producer-consumer`): slots at the end of each run",
             "(`PR_FUTEX_HASH_GET_SLOTS` after the threads are joined: the installed hash, so a pivot",
             "still pending shows the old size); the model's seeds 1 to N and their outcomes.", "",
             "| guest | kernel | workload | threads | s | real: slots at end | model: slots at end | agree |",
             "|---|---|---|---|---|---|---|---|"]
    for rec in records:
        lines += run_rows(rec)
    lines += ["", "The selftests, inner results (futex_requeue: `pass`, or each call whose expectation failed",
              "with what it returned and, in brackets, what the test expected; the model's",
              "`requeued/woken`):", "",
              "| guest | kernel | test | real | model | agree |", "|---|---|---|---|---|---|"]
    for rec in records:
        lines += selftest_rows(rec)
    others = [row for rec in records for row in other_selftest_rows(rec)]
    if others:
        lines += ["", "Every other futex selftest of the tree (`beside --selftests all`), as the kernel reports",
                  "it: the TAP checks of each run (`all N ok on K of R`), whether every run passed, and what",
                  "the model has of it:", "",
                  "| guest | kernel | test | real | runs all ok | the model |", "|---|---|---|---|---|---|"]
        lines += others
    lines += ["", "Recorded: " + "; ".join(sorted({f"{r['date']} on {r['host']} ({r['accel']})" for r in records}))
              + ". Records: experiments/results/vm/."]
    return "\n".join(lines) + "\n"


def update_doc(path, table):
    with open(path) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise ValueError(f"{path} has no beside-table markers ({BEGIN!r} ... {END!r})")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w") as f:
        f.write(head + BEGIN + "\n" + table + END + tail)
