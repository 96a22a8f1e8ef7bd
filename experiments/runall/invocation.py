"""One invocation of run_all: which specs it sweeps, how (--quick, --jobs,
which futexsim), where it writes, and how it names what it wrote."""
import os

from .common import Bad, ROOT


def quick_args(args):
    """The spec's sweep flags, cut down: 2 runs, lengths / 100 and at most
    half a second (a full-scale study's 300 s runs of 192 threads would cost
    minutes even then), bins / 100."""
    out = list(args)
    for flag, fn in (("--runs", lambda v: str(min(int(v), 2))),
                     ("--seconds", lambda v: f"{min(max(float(v) / 100, 0.001), 0.5):g}"),
                     ("--interval-ms", lambda v: f"{max(float(v) / 100, 0.1):g}")):
        i = out.index(flag) + 1 if flag in out else None
        if i is None or i == len(out):  # a flag without its value: `futexsim sweep` says so
            continue
        try:
            out[i] = fn(out[i])
        except ValueError:
            raise Bad(f"{flag} {out[i]!r} is not a number")
    return out


class Invocation:
    """The parsed command line, and the folders it writes to: results
    (sweeps) in res_dir, results.md in doc_dir, plots in plot_dir."""

    def __init__(self, a, res_dir, doc_dir):
        self.futexsim, self.jobs = a.futexsim, a.jobs
        self.only, self.long, self.quick = a.only, a.long, a.quick
        self.out_dir = a.out_dir
        self.res_dir, self.doc_dir = res_dir, doc_dir
        self.plot_dir = doc_dir / "plots"

    def asked(self, spec):
        """Whether this run of run_all sweeps the spec: --only names it; without
        --only every spec, a long one with --long or --quick only."""
        if self.only:
            return spec["name"] == self.only
        return not spec.get("long") or self.long or self.quick

    def sweep_args(self, args):
        """A sweep's arguments as this invocation runs them."""
        return quick_args(args) if self.quick else args

    def shown(self, path):
        """A file's name in results.md: relative to the repository, or (with
        --out-dir) beside results.md."""
        return path.name if self.out_dir else os.path.relpath(path, ROOT)

    def plot_file(self, stem):
        """Where the plot `stem`.png goes."""
        return self.plot_dir / f"{stem}.png"
