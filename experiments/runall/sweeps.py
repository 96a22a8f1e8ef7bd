"""The spec's sweeps through futexsim: checking a grid before anything runs,
running (and resuming) `futexsim sweep`, and reading what it recorded with
`futexsim report`."""
import json
import re
import sys

import children

from .common import Bad, Failed, left_out, sweep_file


def futexsim_error(stderr):
    """futexsim's one-line error, without its "futexsim: error: " prefix."""
    lines = stderr.strip().splitlines()
    return re.sub(r"^futexsim: (error: )?", "", lines[-1]) if lines else "no message"


def check_grid(futexsim, args, out, jobs):
    """Refuses (Bad) the sweep's arguments as `futexsim sweep` would, running
    nothing: futexsim checks the grid, then refuses a shard that owns none
    of its runs (no grid has 2^32 - 1 runs without --large-grid)."""
    n = 2 ** 32 - 1
    cmd = [futexsim, "sweep", *args, "--out", str(out), "--shard", f"{n}/{n}"] + (["--jobs", str(jobs)] if jobs else [])
    err = children.run(cmd, capture_output=True, text=True).stderr
    if "this shard owns none of the grid" not in err:
        raise Bad(f"`futexsim sweep` refuses it: {futexsim_error(err)}")


def report(futexsim, path):
    """`futexsim report --format json` of a sweep's file, or (None, why not):
    it refuses a file whose last line is cut short, which a sweep resumes."""
    r = children.run([futexsim, "report", "--format", "json", str(path)], capture_output=True, text=True)
    return (json.loads(r.stdout), None) if r.returncode == 0 else (None, futexsim_error(r.stderr))


def sweep(futexsim, spec, part, args, res_dir, jobs):
    """Runs (or resumes) one part of the spec's sweeps: its report and its file."""
    out = sweep_file(res_dir, spec["name"], part)
    cmd = [futexsim, "sweep", *args, "--out", str(out)]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    print("run_all:", " ".join(cmd), file=sys.stderr, flush=True)
    rc = children.run(cmd).returncode
    if rc:
        raise Failed(f"{spec['name']}: `futexsim sweep` exited with status {rc} (its message above)", rc)
    rep, why = report(futexsim, out)
    if why:
        raise Failed(f"{spec['name']}: `futexsim report` refuses what its sweep wrote: {why}", 1)
    return rep, out


def recorded(futexsim, spec, res_dir):
    """The reports of the spec's recorded sweeps if every part has all its
    grid's runs; else None and why not."""
    reports = {}
    for part in spec["sweeps"]:
        path = sweep_file(res_dir, spec["name"], part)
        if not path.exists():
            return None, f"no {path.name} yet"
        rep, why = report(futexsim, path)
        if why:
            return None, why
        if rep["runs"] < rep["grid_runs"]:
            return None, f"{path.name} has {rep['runs']} of its {rep['grid_runs']} runs"
        reports[part] = rep
    return reports, None


def swept_or_recorded(spec, inv):
    """The reports of the spec's sweeps by part, and their files as
    results.md names them: swept now if the invocation asks for the spec;
    else recorded, kept only if complete (futexsim reads them; nothing of
    the spec runs, resumes or is rewritten). None, once it has said why,
    where the spec is left out."""
    if inv.asked(spec):
        reports, files = {}, []
        for part, args in spec["sweeps"].items():
            reports[part], out = sweep(inv.futexsim, spec, part, inv.sweep_args(args), inv.res_dir, inv.jobs)
            files.append(inv.shown(out))
        return reports, files
    reports, why = recorded(inv.futexsim, spec, inv.res_dir)
    if why:
        left_out(spec, why)
        return None
    return reports, [inv.shown(sweep_file(inv.res_dir, spec["name"], part)) for part in spec["sweeps"]]
