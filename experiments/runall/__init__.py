"""The parts of experiments/run_all, which is the driver (its command line,
its specs, a table from spec kind to module): one module per spec kind
(reference, series, recovery, timelines, sensitivity: each runs, tabulates
and plots its kind), stats (the statistics they state results with),
sweeps (futexsim's sweeps and reports), invocation (what one run_all was
asked to do) and common (what the kinds share)."""
