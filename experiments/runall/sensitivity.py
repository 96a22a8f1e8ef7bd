"""The "sensitivity" spec kind: runs `futexsim sensitivity` with the spec's
"args" (its sweeps resumed like the others), states each prediction as a
band across the plausible parameters beside the real machine's figures,
and draws the tornado plot (experiments/plot_tornado.py)."""
import json
import os
import sys

import children

from .common import EXPERIMENTS, ROOT, Bad, Failed, code_list, heading, left_out, read_csv
from .sweeps import futexsim_error

# What run_all reads of the spec besides "name" and "title".
NEEDS = ("describe", "args", "quick_args", "lengths", "throughput_reference")
PLOT_TORNADO = EXPERIMENTS / "plot_tornado.py"


def read_throughput_reference(spec):
    """The rows of the spec's "throughput_reference" table (experiments/reference/)."""
    return read_csv(EXPERIMENTS / "reference" / spec["throughput_reference"])


def check(spec):
    """Bad unless the throughput table has the columns run_all reads."""
    rows = read_throughput_reference(spec)
    for col in ("threads", "arm", "kernel", "mops"):
        if rows and col not in rows[0]:
            raise Bad(f"reference/{spec['throughput_reference']}: no column {col!r}")


def sensitivity_paths(spec, res_dir):
    """Where `futexsim sensitivity` keeps the spec's sweeps, named by a path
    relative to the repository so that they resume in any clone, and where
    run_all keeps its output."""
    return os.path.relpath(res_dir / spec["name"], ROOT), res_dir / f"{spec['name']}.json"


def sensitivity_run(futexsim, spec, args, res_dir, jobs):
    """`futexsim sensitivity`, its sweeps resumed; its output recorded."""
    rel, path = sensitivity_paths(spec, res_dir)
    cmd = [os.path.abspath(futexsim), "sensitivity", *args, "--out-dir", rel, "--format", "json"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    print("run_all:", " ".join(cmd), file=sys.stderr, flush=True)
    r = children.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode:
        raise Failed(f"{spec['name']}: `futexsim sensitivity` exited with status {r.returncode}: "
                     f"{futexsim_error(r.stderr)}", r.returncode)
    j = json.loads(r.stdout)
    path.write_text(json.dumps(j, indent=1) + "\n")
    return j


def sensitivity_recorded(spec, res_dir):
    """The output its last complete run recorded, for a sensitivity spec not
    asked for (nothing of it runs); else None and why not."""
    path = sensitivity_paths(spec, res_dir)[1]
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except FileNotFoundError:
        return None, f"no {path.name} yet"
    except (OSError, ValueError) as e:
        return None, f"{path.name} cannot be read: {e}"


def real_throughput(spec, threads):
    """The real machine's auto-scaled and presized rates at `threads` from the
    spec's "throughput_reference" (every kernel in it): (min, max) each."""
    rows = read_throughput_reference(spec)

    def span(arm):
        v = [float(x) for r in rows if r["threads"] == str(threads) and r["arm"].startswith(arm)
             for x in r["mops"].split()]
        return (min(v), max(v)) if v else None
    return span("auto"), span("presize"), sorted({r["kernel"] for r in rows})


def markdown(spec, j, files, args):
    """The predictions as bands, then a row per parameter."""
    from plot_tornado import edge  # a threshold band's upper edge, as the tornado plot draws it

    top = max(j["threads"])
    real_auto, real_pres, kernels = real_throughput(spec, top)
    real = lambda v, digits: (f"the real machine: {v[0]:.{digits}f}-{v[1]:.{digits}f}" if v
                              else f"no real figure at {top} threads")
    # `futexsim sensitivity` lists the parameters largest threshold swing first.
    params = j["parameters"]
    variants = [j["preset"]] + [p[side] for p in params for side in ("at_low", "at_high")]

    def dominant(value, among):
        return max(among, key=lambda p: abs(value(p["at_high"]) - value(p["at_low"])))["name"]

    lo = min(variants, key=lambda x: edge(x, top))
    hi = max(variants, key=lambda x: edge(x, top))
    # Latched throughput at the largest count: the variants that latch there.
    latched = [x["auto_mops"] for x in variants if x["threshold_above"] is not None]
    both_latch = [p for p in params if None not in (p["at_low"]["threshold_above"], p["at_high"]["threshold_above"])]
    pres = [x["presized_mops"] for x in variants]
    out = heading(spec) + [
        f"Command: `futexsim sensitivity {' '.join(args)}` ({spec['lengths']}). "
        f"Results: {code_list(files)}.", "",
        "**The predictions as bands** (each parameter moved alone over its range, the others at the preset):", "",
        f"- **Stall threshold** (threads): {j['preset']['threshold']} at the preset; across the plausible "
        f"parameters from {lo['threshold']} to {hi['threshold']}. The parameter that dominates it: "
        f"`{params[0]['name']}`.",
        (f"- **Latched throughput at {top} threads** (auto-scaled, over the whole run as the real runs "
         f"measure it, healthy start included; the variants that latch there): "
         f"{j['preset']['auto_mops']:.1f} Mops/s at the preset; {min(latched):.1f}-{max(latched):.1f} "
         f"across them ({real(real_auto, 1)}). Dominated by "
         f"`{dominant(lambda x: x['auto_mops'], both_latch) if both_latch else 'none'}`." if latched else
         f"- **Latched throughput at {top} threads:** no variant latched there."),
        f"- **Healthy throughput at {top} threads** (presized): {j['preset']['presized_mops']:.0f} Mops/s at the "
        f"preset; {min(pres):.0f}-{max(pres):.0f} across them ({real(real_pres, 0)}). Dominated by "
        f"`{dominant(lambda x: x['presized_mops'], params)}`.", "",
        f"Real figures: experiments/reference/{spec['throughput_reference']} (kernels {', '.join(kernels)}).", "",
        "One parameter at a time: bands of two parameters moved together can be wider. A threshold band `a-b` "
        "means the latched probability's 95% interval lies below 1/2 at a and above it at b; `<=a`: above "
        "1/2 already at the grid's smallest count; `>b`: never above 1/2 within the grid.", "",
        "| parameter | low / preset / high | threshold at low | at high | latched or auto Mops/s at "
        f"{top} (low / high) | presized Mops/s (low / high) | range from |",
        "|---|---|---|---|---|---|---|"]
    for p in params:
        lo_, hi_ = p["at_low"], p["at_high"]
        out.append(f"| {p['name']} | {p['low']:g} / {p['preset']:g} / {p['high']:g} | {lo_['threshold']} | "
                   f"{hi_['threshold']} | {lo_['auto_mops']:.1f} / {hi_['auto_mops']:.1f} | "
                   f"{lo_['presized_mops']:.0f} / {hi_['presized_mops']:.0f} | {p['why']} |")
    return "\n".join(out) + "\n"


def section(spec, inv):
    """Runs (or reads) `futexsim sensitivity`, draws the tornado plot; the
    spec's markdown, or None if left out."""
    args = spec["quick_args"] if inv.quick else spec["args"]
    if inv.asked(spec):
        j = sensitivity_run(inv.futexsim, spec, args, inv.res_dir, inv.jobs)
    else:
        j, why = sensitivity_recorded(spec, inv.res_dir)
        if why:
            left_out(spec, why)
            return None
    output = sensitivity_paths(spec, inv.res_dir)[1]
    files = [inv.shown(inv.res_dir / spec["name"]) + "/", inv.shown(output)]
    # A script of its own, in a child: plot_tornado.py is also run by hand on any sensitivity output.
    rc = children.run([sys.executable, str(PLOT_TORNADO), str(output), str(inv.plot_file(spec["name"]))]).returncode
    if rc:
        raise Failed(f"{spec['name']}: plot_tornado.py exited with status {rc}", rc)
    return markdown(spec, j, files, args)
