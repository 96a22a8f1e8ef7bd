"""experiments/vm/beside: one guest beside the model. Plans the guest's
commands (reproducers 1 and 2 through futexsim's kernel backend, the futex
selftests, each run its own process), boots it with experiments/vm/run,
reads back what each command printed, runs the model on the guest's machine
file with the policy the kernel carries, and keeps both as one record.

Only functional results are kept from the guest (slots, pass/fail, return
values, requeue counts): under TCG its timing is not hardware timing."""

import datetime
import json
import os
import platform
import re

from . import children, selftest_output

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(HERE))
RUN = os.path.join(HERE, "run")
FUTEXSIM = os.path.join(REPO, "build", "futexsim")
MACHINES = os.path.join(HERE, "machines")
# The model runs v7.2.1: 7.2.13 carries both futex_pivot_pending() fixes
# (docs/kernel-map.md).
MODEL_KERNEL = "v7.2.1"
# Each guest command is ended after this long (busybox timeout), so a hang
# (wait-for-new's futex_requeue_pi, docs/vm.md) is a finding, not a lost guest.
COMMAND_TIMEOUT_S = 120
SELFTESTS = ["futex_requeue", "futex_wait_timeout", "futex_wait_wouldblock", "futex_requeue_pi"]
# The kernel a policy's patch builds (experiments/kernel/build-kernel) and
# the model's policy of the same name; stock is Debian's own image.
# rwsem-gate-v1 is rwsem-gate's patch as first booted, before its
# requeue-PI fix (docs/findings.md, "rwsem-gate and requeue-PI").
POLICIES = ["stock", "wait-for-new", "rwsem-gate-v1", "rwsem-gate"]


def machine_file(cpus):
    return os.path.join(MACHINES, f"qemu-tcg-{cpus}.json")


def default_image(cache, policy):
    """None: experiments/vm/run's default, Debian's 7.2.13 cloud image."""
    if policy == "stock":
        return None
    return os.path.join(cache, "images", policy, "bzImage")


def workload_runs(workload, threads, repeats, seconds):
    return [{"workload": workload, "threads": t, "seconds": seconds} for t in threads for _ in range(repeats)]


def plan(a):
    """The guest's commands, in order, each a dict saying what it is."""
    runs = workload_runs("wake-nowaiters", a.threads, a.repeats, 1.0)
    runs += workload_runs("wake-nowaiters", [a.long_threads], 1, a.long_seconds)
    runs += workload_runs("producer-consumer", a.pc_threads, a.repeats, 1.0)
    plan = []
    for r in runs:
        cmd = (f"timeout {COMMAND_TIMEOUT_S} futexsim run --backend kernel --workload {r['workload']} "
               f"--threads {r['threads']} --seconds {r['seconds']:g} --json")
        plan.append({"kind": "run", **r, "command": cmd})
    for name in a.selftests:
        for _ in range(a.selftest_repeats):
            plan.append({"kind": "selftest", "test": name, "command": f"timeout {COMMAND_TIMEOUT_S} {name}"})
    return plan


HEADER = re.compile(r"^=== \[(\d+)/(\d+)\] (.*)$")
STATUS = re.compile(r"^=== \[(\d+)/(\d+)\] exit status (-?\d+) \(([\d.]+) s\)$")


def split_commands(text):
    """experiments/vm/run's printed output -> {index: {"lines", "rc"}}."""
    out, current = {}, None
    for line in text.splitlines():
        m = STATUS.match(line)
        if m and current is not None and int(m.group(1)) == current:
            out[current]["rc"] = int(m.group(3))
            current = None
            continue
        m = HEADER.match(line)
        if m:
            current = int(m.group(1))
            out[current] = {"lines": [], "rc": None}
            continue
        if current is not None:
            out[current]["lines"].append(line)
    return out


def read_run(lines, rc):
    """A kernel-backend run's JSON line, without its per-interval series."""
    for line in reversed(lines):
        if line.startswith("{"):
            try:
                r = json.loads(line)
            except ValueError:
                break
            return {k: v for k, v in r.items() if not k.startswith("per_interval")}
    return {"error": f"no JSON line (exit status {rc})", "tail": lines[-3:]}


def real_results(steps, text):
    done = split_commands(text)
    results = []
    for i, step in enumerate(steps, start=1):
        got = done.get(i)
        r = dict(step)
        if got is None or got["rc"] is None:
            r["missing"] = True
        elif step["kind"] == "run":
            r["rc"] = got["rc"]
            r["result"] = read_run(got["lines"], got["rc"])
        else:
            r["rc"] = got["rc"]
            r["cases"] = selftest_output.parse(step["test"], got["lines"], got["rc"])
            # Kept as printed, for what the parse does not show (a hang's
            # last lines, a message of the test's own).
            r["lines"] = got["lines"][:400]
        results.append(r)
    return results


def model_runs(futexsim, cpus, policy, steps, runs):
    """The model's runs for every (workload, threads, seconds) the guest ran."""
    out = []
    seen = set()
    for step in steps:
        if step["kind"] != "run":
            continue
        key = (step["workload"], step["threads"], step["seconds"])
        if key in seen:
            continue
        seen.add(key)
        cmd = [futexsim, "run", "--machine-file", machine_file(cpus), "--kernel", MODEL_KERNEL,
               "--policy", policy, "--workload", step["workload"], "--threads", str(step["threads"]),
               "--seconds", f"{step['seconds']:g}", "--runs", str(runs), "--json"]
        r = children.run(cmd, capture_output=True, text=True, check=True)
        results = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
        out.append({"workload": step["workload"], "threads": step["threads"], "seconds": step["seconds"],
                    "command": " ".join(cmd[1:]),
                    "runs": [{k: x.get(k) for k in ("seed", "slots_end", "outcome", "pivots_completed",
                                                     "pivot_pending_at_end")} for x in results]})
    return out


def model_selftests(futexsim, cpus, policy, runs):
    cmd = [futexsim, "selftests", "--machine-file", machine_file(cpus), "--policy", policy,
           "--kernel", MODEL_KERNEL, "--runs", str(runs)]
    r = children.run(cmd, capture_output=True, text=True, check=True)
    return {"command": " ".join(cmd[1:]), "cases": selftest_output.parse_model(r.stdout)}


def panic_trace(console_path, keep=80):
    """The console's last lines up to its kernel panic (the oops and its
    trace before it), or [] when the guest did not panic."""
    try:
        with open(console_path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    at = next((i for i, ln in enumerate(lines) if "Kernel panic - not syncing" in ln), None)
    return [] if at is None else lines[max(0, at - keep + 1):at + 1]


def portable(value, cache):
    """The record as the repository keeps it, naming no path of this
    machine: the kernel cache's becomes `<kernel-cache>/...`, the
    checkout's repository-relative (the futexsim that ran the model,
    build/futexsim, and the machine files)."""
    if isinstance(value, dict):
        return {k: portable(v, cache) for k, v in value.items()}
    if isinstance(value, list):
        return [portable(v, cache) for v in value]
    if isinstance(value, str):
        if cache:
            value = value.replace(os.path.realpath(cache).rstrip("/") + "/", "<kernel-cache>/")
            value = value.replace(cache.rstrip("/") + "/", "<kernel-cache>/")
        return value.replace(REPO + "/", "")
    return value


def write_record(path, rec, cache):
    with open(path, "w") as f:
        json.dump(portable(rec, cache), f, indent=1)
        f.write("\n")


def host_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def record(a, policy, image, guest_text, guest_rc, wall_s):
    steps = plan(a)
    # The last boot's: under --accel auto a failed KVM boot is followed by TCG's.
    accel = (re.findall(r"accelerator (KVM|TCG)", guest_text) or [None])[-1]
    booted = (re.findall(r"guest up after ([\d.]+) s", guest_text) or [None])[-1]
    return {
        "policy": policy,
        "image": image or "Debian 7.2.13 cloud amd64 (experiments/kernel/fetch --only image-amd64)",
        "cpus": a.cpus,
        "accel": accel,
        "date": datetime.date.today().isoformat(),
        "host": host_cpu(),
        "guest_exit_status": guest_rc,
        "guest_boot_s": float(booted) if booted else None,
        "guest_wall_s": round(wall_s, 1),
        # What experiments/vm/run said about the guest itself (a panic, a
        # timeout, the verdict), which explains any command not reported.
        "guest_notes": [ln for ln in guest_text.splitlines()
                        if ln.startswith("vm: ") and not ln.startswith(("vm: booting", "vm: TCG emulates"))],
        "machine_file": os.path.relpath(machine_file(a.cpus), REPO),
        "selftests": list(a.selftests),
        "model_runs": a.model_runs,
        "model_selftest_runs": a.model_selftest_runs,
        "real": real_results(steps, guest_text),
        "model": model_side(a.futexsim, a.cpus, policy, steps, a.model_runs, a.model_selftest_runs),
    }


def model_side(futexsim, cpus, policy, steps, runs, selftest_runs):
    return {"runs": model_runs(futexsim, cpus, policy, steps, runs),
            "selftests": model_selftests(futexsim, cpus, policy, selftest_runs)}


def remodel(rec, futexsim):
    """The record with its model side run again (the guest's part kept):
    for a model that changed since the guest ran."""
    rec = dict(rec)
    rec["model"] = model_side(futexsim, rec["cpus"], rec["policy"], rec["real"], rec.get("model_runs", 3),
                              rec.get("model_selftest_runs", 8))
    rec["model_date"] = datetime.date.today().isoformat()
    return rec
