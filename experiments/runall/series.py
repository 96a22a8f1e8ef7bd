"""The "series" spec kind (no real table to compare with): the latched
probability against the spec's "x", one line per value of its "series"
field, and a panel per value of the first field when it names two."""
from .common import heading, probability, pyplot, save_figure, simulated_only
from .stats import wilson_error_bars
from .sweeps import swept_or_recorded

# What run_all reads of the spec besides "name" and "title".
NEEDS = ("describe", "x", "series", "sweeps", "lengths")


def series_keys(spec):
    """The cell fields that make a series: one name or a list of them."""
    ser = spec["series"]
    return ser if isinstance(ser, list) else [ser]


def markdown(spec, report, files):
    """A table of the cells, one row per series value(s) and x."""
    x, keys = spec["x"], series_keys(spec)
    out = heading(spec) + [
        simulated_only(spec, files), "",
        "| " + " | ".join(keys) + f" | {x} | latched (model) | transient | never | auto Mops/s (median) |",
        "|" + "---|" * (len(keys) + 5)]
    for c in sorted(report["cells"], key=lambda c: tuple(c[k] for k in keys) + (c[x],)):
        out.append("| " + " | ".join(str(c[k]) for k in keys) +
                   f" | {c[x]:g} | {probability(c['latched'], c['runs'])} | {c['transient']} | "
                   f"{c['never']} | {c['mops_median']:.1f} |")
    return "\n".join(out) + "\n"


def plot(spec, report, path):
    plt = pyplot()
    x, keys = spec["x"], series_keys(spec)
    # One panel per value of the first series field when there are two
    # (machine, then threads within it); else one panel.
    panels = sorted({c[keys[0]] for c in report["cells"]}) if len(keys) > 1 else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1.5, 4), dpi=100, squeeze=False,
                             sharey=True)
    for ax, panel in zip(axes[0], panels):
        cells_in = [c for c in report["cells"] if panel is None or c[keys[0]] == panel]
        line_key = keys[-1]
        for value in sorted({c[line_key] for c in cells_in}):
            cells = sorted((c for c in cells_in if c[line_key] == value), key=lambda c: c[x])
            ps, lo, hi = wilson_error_bars([(c["latched"], c["runs"]) for c in cells])
            ax.errorbar([c[x] for c in cells], ps, yerr=[lo, hi], marker="s", capsize=3,
                        label=f"{line_key} = {value}")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlabel(x)
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        if panel is not None:
            ax.set_title(str(panel), fontsize=9)
    axes[0][0].set_ylabel("P(latched), 95% Wilson interval")
    fig.suptitle(spec["title"], fontsize=9)
    save_figure(fig, path)


def section(spec, inv):
    """Sweeps (or reads) the spec, plots it; its markdown, or None if left out."""
    swept = swept_or_recorded(spec, inv)
    if swept is None:
        return None
    reports, files = swept
    plot(spec, reports["auto"], inv.plot_file(spec["name"]))
    return markdown(spec, reports["auto"], files)
