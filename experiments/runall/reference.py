"""The "reference" spec kind: a real table (experiments/reference/) beside
the simulated sweep, thread count by thread count, with 95% Wilson
intervals on both stall probabilities, a mark where they do not overlap,
the throughputs and a plot of both probabilities."""
from .common import EXPERIMENTS, Bad, code_list, probability, pyplot, read_csv, save_probability_plot
from .stats import wilson, wilson_error_bars
from .sweeps import swept_or_recorded

# What run_all reads of the spec besides "name" and "title".
NEEDS = ("reference", "real", "sweeps", "lengths")


def read_reference(spec):
    """The real table by its key column (threads); Bad if a column the spec
    names is missing or holds what is not a whole number."""
    real = spec["real"]
    rows = read_csv(EXPERIMENTS / spec["reference"])
    for col in (real["key"], real["stalled"], real["runs"]):
        if rows and col not in rows[0]:
            raise Bad(f"{spec['reference']}: no column {col!r}")
        bad = next((r[col] for r in rows if not (r[col] or "").strip().isdigit()), None)
        if bad is not None:
            raise Bad(f"{spec['reference']}: {bad!r} in column {col!r} is not a whole number")
    return {int(row[real["key"]]): row for row in rows}


def check(spec):
    """Bad unless "real" names the columns run_all reads and the table has them."""
    real = spec["real"]
    if not isinstance(real, dict) or any(key not in real for key in ("key", "stalled", "runs", "describe")):
        raise Bad('"real" must name the reference\'s "key", "stalled" and "runs" columns and "describe" it')
    read_reference(spec)


def compare(spec, reports):
    """Rows keyed by thread count: real and simulated stalls and throughput."""
    real = read_reference(spec)
    auto = {c["threads"]: c for c in reports["auto"]["cells"]}
    pres = {c["threads"]: c for c in reports.get("presized", {"cells": []})["cells"]}
    rows = []
    for t in sorted(set(auto) | set(real)):
        r, a, p = real.get(t), auto.get(t), pres.get(t)
        row = {"threads": t}
        if r:
            row["real_k"], row["real_n"] = int(r[spec["real"]["stalled"]]), int(r[spec["real"]["runs"]])
            for key in ("auto_mops", "presized_mops"):
                if key in spec["real"] and r.get(spec["real"][key]):
                    row["real_" + key] = float(r[spec["real"][key]])
        if a:
            row["sim_k"], row["sim_n"] = a["latched"], a["runs"]
            row["sim_transient"] = a["transient"]
            row["sim_auto_mops"] = a["mops_median"]
        if p:
            row["sim_presized_mops"] = p["mops_median"]
        if "real_k" in row and "sim_k" in row:
            rl, rh = wilson(row["real_k"], row["real_n"])
            sl, sh = wilson(row["sim_k"], row["sim_n"])
            row["agree"] = not (sh < rl or sl > rh)
        rows.append(row)
    return rows


def threshold(rows, k, n):
    """The smallest thread count whose stall probability's interval lies above 1/2."""
    for row in rows:
        if k in row and wilson(row[k], row[n])[0] > 0.5:
            return row["threads"]
    return None


def markdown(spec, rows, files):
    out = [f"## {spec['title']}", "",
           f"Real: {spec['real']['describe']} (experiments/{spec['reference']}). "
           f"Simulated: {spec['lengths']}; Xeon preset, CPUs 0-95. Sweep results: "
           + code_list(files) + ".", "",
           "Stall probability as k/n [95% Wilson interval]; **DISAGREES** where the two intervals do not "
           "overlap. Throughput in Mops/s (simulated: median over seeds).", ""]
    has_real_mops = any("real_auto_mops" in r for r in rows)
    head = ["threads", "stalled (real)", "latched (model)", "agree", "transient (model)",
            "auto (model)", "presized (model)", "ratio (model)"]
    if has_real_mops:
        head += ["auto (real)", "presized (real)", "ratio (real)"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cols = [str(r["threads"]),
                probability(r["real_k"], r["real_n"]) if "real_k" in r else "",
                probability(r["sim_k"], r["sim_n"]) if "sim_k" in r else "",
                ("yes" if r["agree"] else "**DISAGREES**") if "agree" in r else "",
                str(r.get("sim_transient", "")),
                f"{r['sim_auto_mops']:.1f}" if "sim_auto_mops" in r else "",
                f"{r['sim_presized_mops']:.1f}" if "sim_presized_mops" in r else "",
                f"{r['sim_presized_mops'] / r['sim_auto_mops']:.1f}"
                if r.get("sim_auto_mops") and "sim_presized_mops" in r else ""]
        if has_real_mops:
            cols += [f"{r['real_auto_mops']:.1f}" if "real_auto_mops" in r else "",
                     f"{r['real_presized_mops']:.1f}" if "real_presized_mops" in r else "",
                     f"{r['real_presized_mops'] / r['real_auto_mops']:.1f}"
                     if r.get("real_auto_mops") and "real_presized_mops" in r else ""]
        out.append("| " + " | ".join(cols) + " |")
    st_real, st_sim = threshold(rows, "real_k", "real_n"), threshold(rows, "sim_k", "sim_n")
    dis = [str(r["threads"]) for r in rows if r.get("agree") is False]
    out += ["", f"Stall threshold (smallest thread count whose interval lies above 1/2): real "
            f"{st_real if st_real else 'none in the table'}, model {st_sim if st_sim else 'none in the grid'}. "
            + (f"Disagreements beyond the intervals at {', '.join(dis)} threads." if dis
               else "No disagreement beyond the intervals."), ""]
    return "\n".join(out)


def plot(spec, rows, path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    # The two series are drawn a little apart so that equal points stay visible.
    for kind, k, n, marker, label, dx in (("real", "real_k", "real_n", "o", "real machine", -0.6),
                                          ("sim", "sim_k", "sim_n", "s", "model", 0.6)):
        pts = [r for r in rows if k in r]
        ps, lo, hi = wilson_error_bars([(r[k], r[n]) for r in pts])
        ax.errorbar([r["threads"] + dx for r in pts], ps, yerr=[lo, hi], marker=marker, capsize=3, label=label,
                    linestyle="-" if kind == "sim" else "none")
    ax.set_xlabel("threads")
    save_probability_plot(fig, ax, spec, "P(stall), 95% Wilson interval", path)


def section(spec, inv):
    """Sweeps (or reads) the spec, plots it; its markdown, or None if left out."""
    swept = swept_or_recorded(spec, inv)
    if swept is None:
        return None
    reports, files = swept
    rows = compare(spec, reports)
    plot(spec, rows, inv.plot_file(spec["name"]))
    return markdown(spec, rows, files)
