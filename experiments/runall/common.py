"""What run_all's spec kinds share: where the repository is, the two
failures run_all reports in one line, reading a reference table and a
sweep's runs, and the pieces of markdown and plotting every kind writes
the same way."""
import csv
import json
import os
import sys
import textwrap
from pathlib import Path

from .stats import wilson

EXPERIMENTS = Path(__file__).resolve().parent.parent  # experiments/
ROOT = EXPERIMENTS.parent  # the repository


class Bad(Exception):
    """Bad input: run_all() prints it as one line and exits with status 2."""


class Failed(Exception):
    """A child that failed on input run_all did not check (a results file
    holding another grid, say), or was stopped by a signal sent to it alone:
    run_all() prints it as one line."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def read_csv(path):
    """The rows of a reference table; Bad naming the file if it cannot be read."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        raise Bad(f"{os.path.relpath(path, EXPERIMENTS)}: {e.strerror}")
    except (UnicodeDecodeError, csv.Error) as e:
        raise Bad(f"{os.path.relpath(path, EXPERIMENTS)}: not a CSV table ({e})")


def sweep_file(res_dir, name, part):
    """Where the sweep of a spec's part keeps its runs (and resumes from)."""
    return res_dir / f"{name}-{part}.jsonl"


def read_runs(path):
    """The [(cell, run)] of a sweep's JSONL file, in run order (the file's
    order is the order the runs ended in, with several at a time)."""
    runs = []
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            if "run" in row:
                runs.append((row["run_index"], row["cell"], row["run"]))
    return [(cell, run) for _, cell, run in sorted(runs, key=lambda r: r[0])]


def left_out(spec, why):
    """Says on stderr that the spec's section is left out, why, and how to get it."""
    hint = f"`--only {spec['name']}`" + (" or `--long`" if spec.get("long") else "")
    print(f"run_all: {spec['name']} left out: {why} ({hint} runs it; it resumes)", file=sys.stderr)


# --- markdown ---------------------------------------------------------------

def heading(spec):
    """A section's first lines: its title, then what the spec says it shows."""
    return [f"## {spec['title']}", "", spec["describe"], ""]


def code_list(names):
    """File names (or other literals) as `a`, `b` in markdown."""
    return ", ".join(f"`{n}`" for n in names)


def simulated_only(spec, files):
    """The line of a section with nothing real to compare with: run lengths and sweep files."""
    return (f"Simulated: {spec['lengths']}. No real measurement to compare with. Sweep results: "
            + code_list(files) + ".")


def probability(k, n):
    """A stall probability as a table cell: k/n [95% Wilson interval]."""
    lo, hi = wilson(k, n)
    return f"{k}/{n} [{lo:.2f}, {hi:.2f}]"


# --- plots ------------------------------------------------------------------

def pyplot():
    """matplotlib.pyplot, drawing to files: imported on the first plot, so
    that bad input is refused before the slow import."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path):
    """Writes the figure and frees it. Without the "Software" metadata
    (matplotlib's version) a plot regenerated elsewhere differs only where
    its drawing does."""
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    pyplot().close(fig)


def save_probability_plot(fig, ax, spec, ylabel, path):
    """A single-panel plot of a probability (0 to 1, a little room each
    side): its y label, the spec's title, a grid and the legend, then saved."""
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(spec["title"], fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    save_figure(fig, path)


def wrapped_title(title):
    """A long title in lines that fit a 7-inch figure at 9 points."""
    return "\n".join(textwrap.wrap(title, 95))
