#!/usr/bin/env python3
"""Checks fast-forward (the default) against exact runs (--exact): for each workload, thread count,
arm and seed, the same run with and without it; prints per cell how many
outcomes agree, and how often the exact throughput falls within the
extrapolated run's 95% interval (it should, about 95% of the time).

  experiments/fast_forward_check.py --futexsim build/futexsim \
      --workloads wake-nowaiters,producer-consumer --threads 16,24 --seeds 1-50 --seconds 0.2 --jobs 2
"""
import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import children
from stall_threshold import seeds_of as seeds


def run(futexsim, workload, threads, arm, seed, seconds, ff):
    cmd = [futexsim, "run", "--json", "--cpus", "0-95", "--workload", workload, "--threads", str(threads),
           "--seconds", str(seconds), "--seed", str(seed)]
    if arm != "auto":
        cmd += ["--presize", arm.split(":")[1]]
    if not ff:
        cmd.append("--exact")
    return json.loads(children.run(cmd, check=True, stdout=subprocess.PIPE).stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--futexsim", default="build/futexsim")
    p.add_argument("--workloads", default="wake-nowaiters,producer-consumer")
    p.add_argument("--threads", default="16,24")
    p.add_argument("--arms", default="auto,presize:512")
    p.add_argument("--seeds", default="1-10")
    p.add_argument("--seconds", type=float, default=0.2)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    children.stop_on_signals("fast_forward_check")
    cells = [(w, int(t), arm) for w in a.workloads.split(",") for t in a.threads.split(",")
             for arm in a.arms.split(",")]
    jobs = [(c, s, ff) for c in cells for s in seeds(a.seeds) for ff in (False, True)]
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda j: run(a.futexsim, *j[0], j[1], a.seconds, j[2]), jobs))
    by = {(j[0], j[1], j[2]): r for j, r in zip(jobs, results)}
    print("| workload | threads | arm | seeds | outcome agrees | extrapolated | exact within 95% CI | "
          "largest error | median extrapolated from (ms) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        agree = within = extrap = 0
        froms = []
        worst = 0.0  # the largest |exact - extrapolated| / exact of the run's throughput
        n = 0
        for s in seeds(a.seeds):
            e, f = by[(c, s, False)], by[(c, s, True)]
            n += 1
            agree += e["outcome"] == f["outcome"] and e["slots_end"] == f["slots_end"]
            if "extrapolated_from_ms" in f:
                extrap += 1
                froms.append(f["extrapolated_from_ms"])
                worst = max(worst, abs(e["mops"] - f["mops"]) / e["mops"] if e["mops"] > 0 else 0.0)
                within += abs(e["mops"] - f["mops"]) <= f["mops_ci95"] * (1 - f["extrapolated_from_ms"] / (a.seconds * 1e3)) + 1e-9
        froms.sort()
        med = froms[len(froms) // 2] if froms else float("nan")
        print(f"| {c[0]} | {c[1]} | {c[2]} | {n} | {agree}/{n} | {extrap}/{n} | {within}/{extrap} | "
              f"{100 * worst:.3f}% | {med:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
