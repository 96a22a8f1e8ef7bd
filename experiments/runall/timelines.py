"""The "timelines" spec kind: runs nothing; from other specs' recorded
sweeps ("from", "part") it tabulates and plots over time the first
latched, transient and healthy run."""
import sys

from .common import code_list, heading, left_out, pyplot, read_runs, save_figure, sweep_file, wrapped_title
from .sweeps import report

# What run_all reads of the spec besides "name" and "title".
NEEDS = ("describe", "from", "part")
OUTCOMES = ("latched", "transient", "never")


def pick_timelines(runs):
    """The first run of each outcome (latched, transient, never), in the order given."""
    picked = {}
    for cell, run in runs:
        picked.setdefault(run["outcome"], (cell, run))
    return [(o, *picked[o]) for o in OUTCOMES if o in picked]


def markdown(spec, picked, sources):
    """A row per picked run: where it came from and what its stall looked like."""
    out = heading(spec) + [
        "From " + code_list(sources) + ": the first run of each outcome, in that order.", "",
        "| outcome | machine | threads | ramp_ms | seed | Mops/s | FR_ATOMIC share of gets | longest pivot (ms) | pending at end (ms) |",
        "|---|---|---|---|---|---|---|---|---|"]
    for outcome, cell, run in picked:
        gets = run["ref_get_percpu"] + run["ref_get_atomic"]
        out.append(f"| {outcome} | {cell['machine']} | {cell['threads']} | {cell['ramp_ms']:g} | {run['seed']} | {run['mops']:.1f} | "
                   f"{100 * run['ref_get_atomic'] / gets if gets else 0:.1f}% | {run['longest_pivot_ms']:.1f} | "
                   f"{run['pending_ms_at_end']:.0f} |")
    missing = [o for o in OUTCOMES if o not in [p[0] for p in picked]]
    if missing:
        out += ["", f"No run in the sweep ended {', '.join(missing)}."]
    return "\n".join(out) + "\n"


def plot(spec, picked, path):
    """Throughput (top) and the share of gets on FR_ATOMIC (bottom) per bin of each picked run."""
    plt = pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5.5), dpi=100, sharex=True)
    # Show what was simulated: up to the end of the longest simulated part
    # (a fast-forwarded run's extrapolated rest continues off the edge).
    simulated_ms = [run.get("extrapolated_from_ms", run["seconds"] * 1e3) for _, _, run in picked]
    if simulated_ms:
        top.set_xlim(0, 1.1 * max(simulated_ms))
    for outcome, cell, run in picked:
        width = run["interval_ms"]
        xs = [(i + 0.5) * width for i in range(len(run["per_interval_mops"]))]
        label = f"{outcome} ({cell['machine']}, {cell['threads']} threads, ramp {cell['ramp_ms']:g} ms, seed {run['seed']})"
        line, = top.plot(xs, [max(m, 1e-3) for m in run["per_interval_mops"]], label=label)
        if "extrapolated_from_ms" in run:
            # Fast-forwarded: the rest of the run at the measured stationary rate.
            top.plot([run["extrapolated_from_ms"], run["seconds"] * 1e3], [run["mops_stationary"]] * 2,
                     linestyle="--", color=line.get_color(), label="  its extrapolated rest (fast-forward)")
        share = run.get("per_interval_atomic_share", [])
        bottom.plot(xs[:len(share)], [100 * s for s in share], label=label)
    top.set_yscale("log")
    top.set_ylabel(f"Mops/s per {picked[0][2]['interval_ms']:g} ms" if picked else "Mops/s")
    top.set_title(wrapped_title(spec["title"]), fontsize=9)
    top.grid(alpha=0.3)
    top.legend(fontsize=8)
    bottom.set_ylabel("gets on FR_ATOMIC (%)")
    bottom.set_ylim(-3, 103)
    bottom.set_xlabel("virtual time (ms)")
    bottom.grid(alpha=0.3)
    save_figure(fig, path)


def section(spec, inv):
    """Plots and tabulates the picked runs once every sweep it draws on is
    there and whole (run_all runs this kind after the sweeps); its markdown,
    or None if left out."""
    srcs = [sweep_file(inv.res_dir, name, spec["part"]) for name in spec["from"]]
    if not all(src.exists() for src in srcs):
        print(f"run_all: {spec['name']} left out (not all of {', '.join(s.name for s in srcs)} yet)",
              file=sys.stderr)
        return None
    # `futexsim report` refuses a file cut short by a kill, which read_runs() would choke on.
    why = next(filter(None, (report(inv.futexsim, src)[1] for src in srcs)), None)
    if why:
        left_out(spec, why)
        return None
    picked = pick_timelines([r for src in srcs for r in read_runs(src)])
    plot(spec, picked, inv.plot_file(spec["name"]))
    return markdown(spec, picked, [inv.shown(src) for src in srcs])
