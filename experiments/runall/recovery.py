"""The "recovery" spec kind: how long stalls last, per value of the spec's
"series" (Kaplan-Meier over the runs, the ones still stalled at the end
censored) with a survival plot; with "traces": true also each run's time
to recovery, its throughput per bin (a plot), the exponential law's median
beside Kaplan-Meier's (memoryless or not) and the runs' wall time."""
from .common import heading, pyplot, read_runs, save_figure, save_probability_plot, simulated_only, sweep_file, wrapped_title
from .stats import exponential_fit, kaplan_meier, km_quantile, km_survival_at, rule_of_three
from .sweeps import swept_or_recorded

# What run_all reads of the spec besides "name" and "title".
NEEDS = ("describe", "series", "sweeps", "lengths")


def stall_episode(run):
    """(duration ms, recovered): the run's longest stall. A pivot still
    pending at the end is censored at how long it had been pending; else the
    longest completed pivot, which the run saw end."""
    if run["pivot_pending_at_end"]:
        return max(run["pending_ms_at_end"], run["longest_pivot_ms"]), False
    return run["longest_pivot_ms"], True


def recovery_rows(spec, runs):
    """Per value of the spec's series: the runs' outcomes, stall episodes and survival steps."""
    by = {}
    for cell, run in runs:
        by.setdefault(cell[spec["series"]], []).append(run)
    rows = []
    for value, rs in sorted(by.items()):
        eps = [stall_episode(r) for r in rs]
        rows.append((value, [r["outcome"] for r in rs], eps, kaplan_meier(eps)))
    return rows


def markdown(spec, rows, files):
    """Per series value: the outcomes and the Kaplan-Meier times to recovery."""
    ms = lambda v: "not reached" if v is None else f"{v:.0f}"
    out = heading(spec) + [
        simulated_only(spec, files), "",
        "Per run, its longest stall: a completed pivot's duration (it recovered), or how long the pivot "
        "still pending at the end had been (censored: it had not recovered yet). Times to recovery are "
        "Kaplan-Meier quantiles over all runs, censored ones included; \"not reached\" where too few runs "
        "recovered within their length to tell.", "",
        f"| {spec['series']} | runs | latched at the end | transient | never | "
        "recovery 25% (ms) | median (ms) | 75% (ms) | longest recovered (ms) |",
        "|---|---|---|---|---|---|---|---|---|"]
    for value, outcomes, eps, steps in rows:
        recovered = [d for d, r in eps if r]
        out.append(f"| {value} | {len(eps)} | {outcomes.count('latched')} | {outcomes.count('transient')} | "
                   f"{outcomes.count('never')} | {ms(km_quantile(steps, 0.25))} | {ms(km_quantile(steps, 0.5))} | "
                   f"{ms(km_quantile(steps, 0.75))} | {ms(max(recovered) if recovered else None)} |")
    return "\n".join(out) + "\n"


def plot(spec, rows, path):
    """The Kaplan-Meier survival curve of each series value, censored runs marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for value, _, eps, steps in rows:
        xs = [t / 1e3 for t, _ in steps]
        ys = [s for _, s in steps]
        end = max(d for d, _ in eps) / 1e3
        line, = ax.step(xs + [end], ys + [ys[-1]], where="post", label=f"{spec['series']} = {value}")
        # Censored runs: still stalled when the run ended.
        cens = [d / 1e3 for d, r in eps if not r]
        ax.plot(cens, [km_survival_at(steps, t * 1e3) for t in cens], "|", color=line.get_color(), markersize=10)
    ax.set_xlabel("stall duration (virtual s)")
    save_probability_plot(fig, ax, spec, "P(still stalled)  (Kaplan-Meier; | censored)", path)


def runs_markdown(spec, runs):
    """Per run: its time to recovery (or censored), its throughput, what it cost."""
    s = lambda ms: f"{ms / 1e3:.1f}"
    out = [f"Per run ({spec['series']}, seed): the stall's length in virtual seconds, \"> N\" where the run "
           "ended still stalled (censored); mean throughput over the run, in its first and last simulated bin "
           "(Mops/s); the lowest and median count of references a successful atomic get left once folded "
           "(`atomic_refs_at_get`: how close the stall came to draining, which needs 0; n/a for a run made before "
           "the field existed, - where none was counted); the run's wall time on the machine that ran it.", "",
           f"| {spec['series']} | seed | outcome | time to recovery (s) | mean Mops/s | first bin | last bin | "
           "count: lowest / median | wall s |",
           "|---|---|---|---|---|---|---|---|---|"]
    for cell, run in sorted(runs, key=lambda cr: (cr[0][spec["series"]], cr[1]["seed"])):
        d, recovered = stall_episode(run)
        bins = run.get("per_interval_mops", [])
        refs = run.get("atomic_refs_at_get")
        count = "n/a" if refs is None else "-" if not refs["gets"] else f"{refs['min']} / {refs['p50']}"
        out.append(f"| {cell[spec['series']]} | {run['seed']} | {run['outcome']} | "
                   f"{s(d) if recovered else '> ' + s(d)} | {run['mops']:.1f} | "
                   f"{bins[0] if bins else float('nan'):.1f} | {bins[-1] if bins else float('nan'):.1f} | "
                   f"{count} | {run.get('wall_seconds', float('nan')):.0f} |")
    by = {}
    for cell, run in runs:
        by.setdefault(cell[spec["series"]], []).append(run.get("wall_seconds", 0.0))
    total = sum(sum(v) for v in by.values())
    out += ["", "Wall time of the runs, summed (divide by the jobs that ran at once for the study's own): "
            + ", ".join(f"{k} {spec['series']}: {sum(v) / 60:.0f} min" for k, v in sorted(by.items()))
            + f"; in all {total / 3600:.2f} h."]
    return "\n".join(out) + "\n"


def shape_markdown(spec, rows):
    """Per series value: the Kaplan-Meier median beside the median of the
    exponential law with the same rate of recovery (a memoryless stall's)."""
    out = ["Memoryless or not: if a stall ends at a constant rate, whatever its age, its length is exponential, "
           "with the rate recoveries / total time stalled (censored time included). Beside the Kaplan-Meier "
           "median, that law's median; a Kaplan-Meier median well above it, or a tail that flattens, says heavy "
           "tailed. Where no run recovered, the rate's 95% upper bound (3 / time stalled: no recovery in that "
           "time has probability 5% at that rate) and the median it implies at least.", "",
           f"| {spec['series']} | recovered / runs | time stalled in all (s) | exponential rate (per s) | "
           "exponential median (s) | Kaplan-Meier median (s) |",
           "|---|---|---|---|---|---|"]
    for value, _, eps, steps in rows:
        fit = exponential_fit(eps)
        km = km_quantile(steps, 0.5)
        stalled_s = sum(d for d, _ in eps) / 1e3
        if fit:
            law = f"{fit[0] * 1e3:.4f} | {fit[1] / 1e3:.1f}"
        elif stalled_s > 0:
            rate_bound, median_bound = rule_of_three(stalled_s)
            law = f"< {rate_bound:.4f} | > {median_bound:.0f}"
        else:
            law = "- | -"
        out.append(f"| {value} | {sum(1 for _, r in eps if r)}/{len(eps)} | {stalled_s:.1f} | {law} | "
                   f"{'not reached' if km is None else f'{km / 1e3:.1f}'} |")
    return "\n".join(out) + "\n"


def traces_plot(spec, runs, path):
    """Each run's throughput per bin, one panel per series value."""
    plt = pyplot()
    values = sorted({cell[spec["series"]] for cell, _ in runs})
    fig, axes = plt.subplots(len(values), 1, figsize=(7, 2.4 * len(values) + 0.6), dpi=100, sharex=True,
                             squeeze=False)
    for ax, value in zip(axes[:, 0], values):
        panel = [max(y, 1e-3) for cell, run in runs if cell[spec["series"]] == value
                 for y in run["per_interval_mops"]]
        # Log scale where the rates span a stall and a recovery; a flat
        # latched panel reads better on a linear one from zero.
        log = bool(panel) and max(panel) / min(panel) >= 20
        for cell, run in runs:
            if cell[spec["series"]] != value:
                continue
            width_s = run["interval_ms"] / 1e3
            ys = run["per_interval_mops"]
            xs = [(i + 0.5) * width_s for i in range(len(ys))]
            line, = ax.plot(xs, [max(y, 1e-3) for y in ys], linewidth=0.9, label=f"seed {run['seed']}")
            if "extrapolated_from_ms" in run:
                ax.plot([run["extrapolated_from_ms"] / 1e3, run["seconds"]], [run["mops_stationary"]] * 2,
                        linestyle="--", linewidth=0.9, color=line.get_color())
        if log:
            ax.set_yscale("log")
        else:
            ax.set_ylim(0, 1.15 * max(panel) if panel else 1)
        ax.set_ylabel("Mops/s")
        ax.set_title(f"{spec['series']} = {value}", fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, ncol=4)
    axes[-1, 0].set_xlabel("virtual time (s); dashed: a recovered run's fast-forwarded rest")
    fig.suptitle(wrapped_title(spec["title"]), fontsize=9)
    save_figure(fig, path)


def section(spec, inv):
    """Sweeps (or reads) the spec, tabulates and plots its stalls (and with
    "traces" its runs); its markdown, or None if left out."""
    swept = swept_or_recorded(spec, inv)
    if swept is None:
        return None
    _, files = swept
    # The runs themselves, not the report's per-cell summary: survival needs each run's stall.
    runs = read_runs(sweep_file(inv.res_dir, spec["name"], "auto"))
    rows = recovery_rows(spec, runs)
    plot(spec, rows, inv.plot_file(spec["name"]))
    text = markdown(spec, rows, files)
    if spec.get("traces"):
        # Per run, its stall and its trace; whether the stall is memoryless.
        traces_png = inv.plot_file(f"{spec['name']}-traces")
        traces_plot(spec, runs, traces_png)
        text += ("\n" + shape_markdown(spec, rows) + "\n" + runs_markdown(spec, runs)
                 + f"\n![Per-run throughput traces](plots/{traces_png.name})\n")
    return text
