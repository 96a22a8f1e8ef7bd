#!/usr/bin/env python3
"""Plot the counters and pivot instants of a `futexsim run --trace` file.

A plot of the trace's data, not a Perfetto screenshot: the three counters
(futex_atomic less the bias, the per-CPU sum, references held) against
virtual time, FUTEX_WAKE calls completed per bin (from the CPU tracks), and
a vertical line at each pivot instant and grace period end.

    futexsim run --threads 96 --cpus 0-95 --seconds 0.15 \\
        --trace stall.json --trace-window 0:120
    python3 experiments/plot_trace.py stall.json docs/trace-stall.png

futexsim writes one event per line, so the file is read line by line
(a trace of a few hundred MB needs no more memory than its counters);
any other trace-event file is loaded whole. Needs matplotlib
(Debian: python3-matplotlib).
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

INSTANT_COLOURS = {
    "pivot requested": "tab:gray",
    "ref_drop": "tab:orange",
    "FR_ATOMIC": "tab:red",
    "fold": "tab:purple",
    "dead": "black",
    "installed": "tab:green",
    "grace period end": "tab:blue",
}


def events(path):
    with open(path) as f:
        first = f.readline()
        if first.strip() != '{"traceEvents":[':
            f.seek(0)
            yield from json.load(f)["traceEvents"]
            return
        for line in f:
            line = line.strip().rstrip(",")
            if not line.startswith("{"):
                continue
            if line.startswith('{"ph":"X"') or line.startswith('{"ph":"B"') or line.startswith('{"ph":"E"'):
                if '"FUTEX_WAKE"' not in line:
                    continue  # only FUTEX_WAKE slices are plotted; skip the parse
                ts = float(line.split('"ts":', 1)[1].split(",", 1)[0])
                dur = float(line.split('"dur":', 1)[1].split(",", 1)[0])
                yield {"ph": "X", "name": "FUTEX_WAKE", "ts": ts, "dur": dur}
                continue
            yield json.loads(line)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_trace.py TRACE.json OUT.png")
    counters = defaultdict(lambda: ([], []))
    instants = defaultdict(list)
    wakes = []
    for e in events(sys.argv[1]):
        ph = e.get("ph")
        if ph == "C":
            for key, value in e["args"].items():
                if key == "biased":
                    continue
                xs, ys = counters[e["name"]]
                xs.append(e["ts"] / 1000)
                ys.append(value)
        elif ph == "i":
            instants[e["name"]].append(e["ts"] / 1000)
        elif ph == "X" and e.get("name") == "FUTEX_WAKE":
            wakes.append((e["ts"] + e["dur"]) / 1000)

    fig, (ax_rate, ax_count) = plt.subplots(2, 1, sharex=True, figsize=(11, 6.5),
                                            gridspec_kw={"height_ratios": [1, 2]})
    if wakes:
        lo, hi = min(wakes), max(wakes)
        nbins = 200
        ax_rate.hist(wakes, bins=nbins, range=(lo, hi), color="tab:gray",
                     weights=[nbins / (hi - lo) / 1000] * len(wakes))
        ax_rate.set_ylabel("FUTEX_WAKE\ncalls per µs")
    for name, (xs, ys) in counters.items():
        ax_count.step(xs, ys, where="post", label=name, linewidth=0.8)
    for name, ts in instants.items():
        if name in ("pivot requested", "new hash parked"):
            continue  # one per clone: too many lines
        for i, t in enumerate(ts):
            for ax in (ax_rate, ax_count):
                ax.axvline(t, color=INSTANT_COLOURS.get(name, "tab:brown"), linestyle="--", linewidth=0.8,
                           label=name if ax is ax_count and i == 0 else None)
    ax_count.set_xlabel("virtual time (ms)")
    ax_count.set_ylabel("count")
    ax_count.legend(loc="upper left", fontsize="small", ncol=2)
    ax_rate.set_title("futexsim --trace, plotted (not a Perfetto screenshot): " + sys.argv[1].split("/")[-1])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
