"""experiments/vm/beside's command line: checks its input (one line, exit
status 2), boots one guest through experiments/vm/run, runs the model,
writes the record; or renders the table from the records."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from . import beside, beside_table, children, cli, selftests

DESCRIPTION = """\
Runs one kernel in one guest beside the model (issue 29, docs/vm.md "Beside the model").

In the guest (experiments/vm/run, one process per command, each ended after
120 s): reproducer 1 through futexsim's kernel backend at --threads, REPEATS
runs of 1 s each, and one of --long-seconds at --long-threads (does the pivot
complete when given time?); reproducer 2 (producer-consumer) at --pc-threads;
futex_requeue, futex_wait_timeout, futex_wait_wouldblock and futex_requeue_pi,
--selftest-repeats runs each. The model: `futexsim run` and `futexsim
selftests` on experiments/vm/machines/qemu-tcg-CPUS.json with the policy the
kernel carries and --kernel v7.2.1.

Writes OUT/POLICY-CPUScpu.json. --table prints the Markdown table of every
record in OUT; --update-doc FILE puts it between FILE's beside-table markers;
--remodel runs the model side of every record again, keeping the guests'.
Only functional results are compared (slots, pass/fail, return values): a TCG
guest's timing is not hardware timing.

Exit status: 0 recorded (whatever the rows say); 1 the guest or the model
failed to report; 2 bad input; 128 + the signal on SIGINT, SIGTERM or SIGHUP
(passed on to the guest's experiments/vm/run or the model's futexsim, which
end first)."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        bad(message)


def bad(message):
    print(f"beside: error: {message}", file=sys.stderr)
    sys.exit(2)


def thread_list(text):
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes thread counts like 2,8,16, not {text!r}")
    if not values or any(not 1 <= v <= 1024 for v in values):
        raise argparse.ArgumentTypeError(f"thread counts are 1 to 1024, not {text!r}")
    return values


def selftest_list(text):
    try:
        return selftests.parse_names(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def count(lo, hi):
    return cli.positive_int("", lo, hi)


def parse_args(argv):
    p = Parser(prog="experiments/vm/beside", description=DESCRIPTION,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--policy", choices=beside.POLICIES, default="stock",
                   help="the kernel: stock (Debian's image) or a patched build of build-kernel --patch POLICY "
                        "(default stock); the model runs the same policy")
    p.add_argument("--kernel-image", metavar="FILE", help="boot this image instead of the policy's default")
    p.add_argument("--cpus", type=count(1, 255), default=2, metavar="N",
                   help="guest vCPUs; experiments/vm/machines/qemu-tcg-N.json must exist (default 2)")
    p.add_argument("--threads", type=thread_list, metavar="LIST",
                   help="reproducer 1's thread counts (default 2,N,2N,4N)")
    p.add_argument("--long-threads", type=count(1, 1024), metavar="T", help="the long run's threads (default 4N)")
    p.add_argument("--long-seconds", type=float, default=5.0, metavar="S", help="the long run (default 5)")
    p.add_argument("--pc-threads", type=thread_list, metavar="LIST",
                   help="reproducer 2's thread counts (default N,4N)")
    p.add_argument("--repeats", type=count(1, 20), default=2, metavar="K", help="guest runs per thread count (default 2)")
    p.add_argument("--selftests", type=selftest_list, default=list(beside.SELFTESTS), metavar="LIST",
                   help="the selftests the guest runs: a comma-separated list or 'all' (every program of "
                        "tools/testing/selftests/futex/functional, as experiments/vm/run builds them); default "
                        + ",".join(beside.SELFTESTS) + ", the ones the model has")
    p.add_argument("--selftest-repeats", type=count(1, 20), default=4, metavar="K", help="runs per selftest (default 4)")
    p.add_argument("--model-runs", type=count(1, 64), default=3, metavar="K", help="model seeds per row (default 3)")
    p.add_argument("--model-selftest-runs", type=count(1, 64), default=8, metavar="K",
                   help="model seeds per selftest case (default 8)")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto",
                   help="passed to experiments/vm/run (default auto: KVM if it boots, else TCG)")
    p.add_argument("--timeout", type=cli.positive_seconds, default=1800, metavar="S",
                   help="end the guest after S s, more than 0 and at most 86400 (default 1800)")
    p.add_argument("--cache", metavar="DIR", help="the kernel cache (default: experiments/kernel/fetch --print-cache)")
    p.add_argument("--futexsim", default=beside.FUTEXSIM, metavar="FILE", help="futexsim for guest and model")
    p.add_argument("--out", default=os.path.join(beside.REPO, "experiments", "results", "vm"), metavar="DIR",
                   help="where records go (default experiments/results/vm)")
    p.add_argument("--table", action="store_true", help="print the table of every record in --out and exit")
    p.add_argument("--remodel", action="store_true",
                   help="run the model side of every record in --out again (the guests' results kept), "
                        "for a model that changed since; then exit")
    p.add_argument("--update-doc", metavar="FILE", help="write the table into FILE between its markers and exit")
    a = p.parse_args(argv)
    n = a.cpus
    a.threads = a.threads or sorted({2, n, 2 * n, 4 * n})
    a.long_threads = a.long_threads or 4 * n
    a.pc_threads = a.pc_threads or sorted({n, 4 * n})
    if not 0 < a.long_seconds <= 60:
        bad(f"--long-seconds takes 0 to 60 (the kernel backend's limit), not {a.long_seconds:g}")
    return a


def default_cache():
    try:
        return cli.kernel_cache()
    except RuntimeError as e:
        bad(str(e))


def main(argv):
    children.stop_on_signals("beside")
    a = parse_args(argv)
    try:
        return run(a)
    except subprocess.CalledProcessError as e:  # the model's futexsim failed
        tail = (e.stderr or "").strip().splitlines()[-1:] or [f"exit status {e.returncode}"]
        print(f"beside: {' '.join(e.cmd[:2])} failed: {tail[0]}", file=sys.stderr)
        return 1


def run(a):
    if a.remodel:
        if not os.path.isdir(a.out):
            bad(f"--out {a.out}: no such folder (no records yet)")
        if not os.path.isfile(a.futexsim):
            bad(f"no futexsim at {a.futexsim}: build it with ./setup.sh")
        cache = a.cache or default_cache()
        for name in sorted(os.listdir(a.out)):
            if name.endswith(".json"):
                path = os.path.join(a.out, name)
                with open(path) as f:
                    rec = beside.remodel(json.load(f), a.futexsim)
                beside.write_record(path, rec, cache)
                print(f"beside: ran the model again for {path}", flush=True)
        return 0
    if a.table or a.update_doc:
        if not os.path.isdir(a.out):
            bad(f"--out {a.out}: no such folder (no records yet)")
        table = beside_table.render(beside_table.load(a.out))
        if a.update_doc:
            try:
                beside_table.update_doc(a.update_doc, table)
            except (OSError, ValueError) as e:
                bad(str(e))
            print(f"beside: wrote the table into {a.update_doc}")
        else:
            sys.stdout.write(table)
        return 0
    if not os.path.isfile(beside.machine_file(a.cpus)):
        bad(f"no machine file for {a.cpus} vCPUs: {os.path.relpath(beside.machine_file(a.cpus), beside.REPO)} "
            "(measure the guest's topology and HZ and write one, as qemu-tcg-8.json was)")
    if not os.path.isfile(a.futexsim):
        bad(f"no futexsim at {a.futexsim}: build it with ./setup.sh")
    cache = a.cache or default_cache()
    image = a.kernel_image or beside.default_image(cache, a.policy)
    if image and not os.path.isfile(image):
        bad(f"no kernel image at {image}: experiments/kernel/build-kernel --patch {a.policy}")
    cmd = [beside.RUN, "--cpus", str(a.cpus), "--timeout", f"{a.timeout:g}", "--futexsim", a.futexsim,
           "--accel", a.accel]
    if image:
        cmd += ["--kernel-image", image]
    if a.cache:
        cmd += ["--cache", a.cache]
    for step in beside.plan(a):
        cmd += ["--run", step["command"]]
    print(f"beside: booting {a.policy} with {a.cpus} vCPUs, {len(beside.plan(a))} commands", flush=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="beside-") as tmp:
        console = os.path.join(tmp, "console.txt")
        guest = children.run(cmd + ["--console-log", console], stdout=subprocess.PIPE, text=True)
        trace = beside.panic_trace(console)
    wall = time.monotonic() - t0
    if guest.returncode in (2, 130, 143):
        sys.stdout.write(guest.stdout[-2000:])
        return guest.returncode
    print(f"beside: guest done in {wall:.0f} s (exit status {guest.returncode}); running the model", flush=True)
    rec = beside.record(a, a.policy, image, guest.stdout, guest.returncode, wall)
    if trace:
        rec["panic_trace"] = trace
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, f"{a.policy}-{a.cpus}cpu.json")
    beside.write_record(path, rec, cache)
    missing = sum(1 for r in rec["real"] if r.get("missing"))
    print(f"beside: wrote {path}" + (f" ({missing} command(s) not reported)" if missing else ""))
    sys.stdout.write(beside_table.render([rec]))
    return 1 if missing else 0
