#!/usr/bin/env python3
"""Tornado plot of `futexsim sensitivity --format json`: per parameter, the
stall threshold at the low and the high end of its range (bars from the
preset's threshold), largest swing on top.

  futexsim sensitivity --out-dir /tmp/s --format json > s.json
  experiments/plot_tornado.py s.json docs/plots/tornado.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def edge(side, top):
    """The band's upper edge; past the grid when the run never latched."""
    return side["threshold_above"] if side["threshold_above"] is not None else top + 8


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    j = json.load(open(sys.argv[1]))
    top = max(j["threads"])
    base = edge(j["preset"], top)
    params = j["parameters"][::-1]  # matplotlib draws bottom-up
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(params) + 1.5))
    for i, p in enumerate(params):
        lo, hi = edge(p["at_low"], top), edge(p["at_high"], top)
        ax.barh(i, lo - base, left=base, color="tab:blue", label="low end" if i == 0 else None)
        ax.barh(i, hi - base, left=base, color="tab:orange", alpha=0.8, label="high end" if i == 0 else None)
        ax.text(max(lo, hi, base) + 1, i, f'{p["low"]:g} .. {p["high"]:g}', va="center", fontsize=8)
    ax.axvline(base, color="black", linewidth=1)
    ax.set_yticks(range(len(params)), [p["name"] for p in params])
    ax.set_xlabel(f'stall threshold (threads; past {top}: none in the grid); preset: {j["preset"]["threshold"]}')
    ax.set_title(f'{j["workload"]} on {j["machine"]}: {j["runs"]} runs of {j["seconds"]} s per point')
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
