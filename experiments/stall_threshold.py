#!/usr/bin/env python3
"""Stall figures for a workload and pivot policy on a machine preset: latched
fraction per thread count, presized/auto throughput ratios, and where
futex_ref_get found the state. Runs `futexsim run --json` for each (threads,
arm, seed) in parallel and prints one table.

    experiments/stall_threshold.py --futexsim build/futexsim \
        --threads 16,32,48,64,96 --seeds 1-8 --seconds 0.5
    experiments/stall_threshold.py --workload producer-consumer \
        --policy rwsem-gate --threads 96,128,192 --arms auto
    experiments/stall_threshold.py --from experiments/results/repro1-*.jsonl

--from tabulates the runs of `futexsim sweep` files instead of running any
(arm auto, or presize:N as "presized"; one machine, workload and policy).
"""
import argparse
import concurrent.futures as cf
import json
import os
import statistics
import sys

import children


def seeds_of(text):
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def run(args, threads, arm, seed, seconds):
    cmd = [args.futexsim, "run", "--json", "--machine", args.machine, "--threads", str(threads),
           "--seconds", str(seconds), "--seed", str(seed), "--workload", args.workload,
           "--policy", args.policy]
    if args.cpus:
        cmd += ["--cpus", args.cpus]
    if arm == "presized":
        cmd += ["--presize", str(args.presize)]
    out = children.run(cmd, check=True, capture_output=True, text=True).stdout
    return threads, arm, seed, json.loads(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--futexsim", default="build/futexsim")
    p.add_argument("--machine", default="xeon-6975p-snc3")
    p.add_argument("--cpus", default="0-95")
    p.add_argument("--workload", default="wake-nowaiters")
    p.add_argument("--policy", default="stock")
    p.add_argument("--threads", default="16,32,48,64,96")
    p.add_argument("--seeds", default="1-8")
    p.add_argument("--seconds", type=float, default=0.5, help="virtual seconds, auto arm")
    p.add_argument("--presized-seconds", type=float, default=0.2)
    p.add_argument("--presize", type=int, default=512)
    p.add_argument("--arms", default="auto,presized")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--from", dest="sweeps", nargs="+", metavar="FILE",
                   help="tabulate these `futexsim sweep` JSON Lines files instead of running")
    args = p.parse_args()
    children.stop_on_signals("stall_threshold")
    if args.sweeps:
        return tabulate(*from_sweeps(args.sweeps))

    jobs = []
    for t in [int(x) for x in args.threads.split(",")]:
        for arm in args.arms.split(","):
            for s in seeds_of(args.seeds):
                secs = args.seconds if arm == "auto" else args.presized_seconds
                jobs.append((t, arm, s, secs))
    results = {}
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for t, arm, s, j in ex.map(lambda a: run(args, *a), jobs):
            results.setdefault((t, arm), []).append(j)
    return tabulate(f"machine={args.machine} workload={args.workload} policy={args.policy} "
                    f"cpus={args.cpus} seeds={args.seeds} "
                    f"auto={args.seconds}s presized={args.presized_seconds}s", results)


def from_sweeps(paths):
    """The runs of sweep files, by (threads, arm), and a header naming the cells."""
    results, cells = {}, set()
    for path in paths:
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                cell, r = rec["cell"], rec["run"]
                arm = "auto" if cell["arm"] == "auto" else "presized"
                cells.add((cell["machine"], cell["workload"], cell["policy"], cell.get("cpus") or "all",
                           arm, r["seconds"]))
                results.setdefault((cell["threads"], arm), []).append(r)
    header = "; ".join(f"machine={m} workload={w} policy={p} cpus={c} {a}={s}s"
                       for m, w, p, c, a, s in sorted(cells))
    return header, results


def tabulate(header, results):
    print(header)
    print(f"{'threads':>7} {'latched':>8} {'transient':>9} {'auto Mops':>10} {'presized':>9} {'ratio':>7} "
          f"{'atomic%':>8} {'slots_end':>10} {'max wall s':>10}")
    for t in sorted({k[0] for k in results}):
        auto = results.get((t, "auto"), [])
        pre = results.get((t, "presized"), [])
        latched = sum(r["outcome"] == "latched" for r in auto)
        # Pended for over 10 grace periods but the pivot completed within the run.
        transient = sum(r["outcome"] == "transient" for r in auto)
        am = statistics.median(r["mops"] for r in auto) if auto else float("nan")
        pm = statistics.median(r["mops"] for r in pre) if pre else float("nan")
        atomic = [r["ref_get_atomic"] / max(1, r["ref_get_atomic"] + r["ref_get_percpu"]) for r in auto]
        slots = sorted({r["slots_end"] for r in auto + pre})
        wall = max(r["wall_seconds"] for r in auto + pre)
        print(f"{t:>7} {latched:>5}/{len(auto):<2} {transient:>6}/{len(auto):<2} {am:>10.1f} {pm:>9.1f} {pm / am if am else 0:>7.1f} "
              f"{100 * statistics.median(atomic) if atomic else 0:>8.1f} {str(slots):>10} {wall:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
