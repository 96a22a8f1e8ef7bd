#!/usr/bin/env python3
"""What a pivot policy costs when no pivot is pending: the mutex workload
with a fixed amount of work (--ops) on a presized hash, under each policy,
over several seeds. Prints the mean time to finish the work (work_ms), its
spread, and each policy's mean against stock.

    experiments/policy_overhead.py --futexsim build/futexsim \\
        --threads 16 --locks 4 --ops 1000000 --seeds 1-8

Seeds matter: a contended mutex falls into different convoy patterns, so
one seed's work_ms can move by 10% on its own. Compare means over seeds.
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


def run(args, policy, seed):
    cmd = [args.futexsim, "run", "--json", "--machine", args.machine, "--workload", "mutex",
           "--threads", str(args.threads), "--locks", str(args.locks), "--unlock", args.unlock,
           "--ops", str(args.ops), "--presize", str(args.presize), "--seconds", str(args.seconds),
           "--policy", policy, "--seed", str(seed)]
    if args.cpus:
        cmd += ["--cpus", args.cpus]
    out = json.loads(children.run(cmd, check=True, capture_output=True, text=True).stdout)
    if out["work_ms"] < 0:
        sys.exit(f"policy {policy} seed {seed}: the work did not finish in {args.seconds} s; raise --seconds")
    return policy, out["work_ms"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--futexsim", default="build/futexsim")
    p.add_argument("--machine", default="xeon-6975p-snc3")
    p.add_argument("--cpus", default="0-95")
    p.add_argument("--policies", default="stock,wait-for-new,rwsem-gate")
    p.add_argument("--threads", type=int, default=16)
    p.add_argument("--locks", type=int, default=4)
    p.add_argument("--unlock", default="store_wake")
    p.add_argument("--ops", type=int, default=1000000)
    p.add_argument("--presize", type=int, default=64)
    p.add_argument("--seconds", type=float, default=1.0, help="virtual seconds allowed for the work")
    p.add_argument("--seeds", default="1-8")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    args = p.parse_args()
    children.stop_on_signals("policy_overhead")

    policies = args.policies.split(",")
    jobs = [(pol, s) for pol in policies for s in seeds_of(args.seeds)]
    times = {pol: [] for pol in policies}
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for pol, ms in ex.map(lambda a: run(args, *a), jobs):
            times[pol].append(ms)

    print(f"machine={args.machine} mutex threads={args.threads} locks={args.locks} unlock={args.unlock} "
          f"ops={args.ops} presize={args.presize} seeds={args.seeds}")
    print(f"{'policy':>14} {'mean ms':>9} {'sd':>7} {'min':>8} {'max':>8} {'vs stock':>9}")
    base = statistics.mean(times["stock"]) if "stock" in times else None
    for pol in policies:
        t = times[pol]
        mean = statistics.mean(t)
        sd = statistics.stdev(t) if len(t) > 1 else 0.0
        rel = f"{100 * (mean / base - 1):+.1f}%" if base else "-"
        print(f"{pol:>14} {mean:>9.3f} {sd:>7.3f} {min(t):>8.3f} {max(t):>8.3f} {rel:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
