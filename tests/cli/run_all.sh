#!/usr/bin/env bash
# experiments/run_all end to end, cut down (--quick): every spec sweeps,
# reports, and lands in results.md beside its reference table, with a plot.
set -u
bin="$1"
root="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
/usr/bin/python3 "$root/experiments/run_all" --quick --out-dir "$dir" --futexsim "$bin" --jobs 2 2>"$dir/log" ||
    { echo "FAIL: run_all --quick failed"; cat "$dir/log"; exit 1; }
for spec in "$root"/experiments/specs/*.json; do
    name=$(basename "$spec" .json)
    title=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["title"])' "$spec")
    grep -qF "## $title" "$dir/results.md" || { echo "FAIL: no section for $name"; fail=1; }
    [ -s "$dir/plots/$name.png" ] || { echo "FAIL: no plot for $name"; fail=1; }
    # A timelines spec draws on another spec's sweep and runs none of its own.
    if grep -q '"sweeps"' "$spec"; then
        [ -s "$dir/$name-auto.jsonl" ] || { echo "FAIL: no sweep results for $name"; fail=1; }
    fi
done
# Every row that has both a real and a simulated stall count says whether they agree.
grep -E '^\| [0-9]+ \| [0-9]+/[0-9]+ .*\| [0-9]+/[0-9]+ ' "$dir/results.md" | grep -vqE '\| (yes|\*\*DISAGREES\*\*) \|' &&
    { echo "FAIL: a compared row without its verdict"; fail=1; }
# The timelines table names the run it drew for each outcome it found, and the
# recovery table has a row per thread count with its survival quantiles.
grep -qE '^\| (latched|transient|never) \| [a-z0-9-]+ \| [0-9]+ \| [0-9.]+ \| [0-9]+ \|' "$dir/results.md" ||
    { echo "FAIL: no run in the timelines table"; fail=1; }
grep -qE '^\| [0-9]+ \| 2 \| [0-9]+ \| [0-9]+ \| [0-9]+ \| ' "$dir/results.md" ||
    { echo "FAIL: no row in the recovery table"; fail=1; }
# A recovery spec with "traces" adds each run's time to recovery, the
# memoryless check and a plot of the runs' traces.
for spec in $(grep -l '"traces": true' "$root"/experiments/specs/*.json); do
    name=$(basename "$spec" .json)
    [ -s "$dir/plots/$name-traces.png" ] || { echo "FAIL: no traces plot for $name"; fail=1; }
done
grep -qE '^\| [0-9]+ \| [0-9]+ \| (latched|transient|never) \| (> )?[0-9.]+ \| ' "$dir/results.md" ||
    { echo "FAIL: no run in the per-run recovery table"; fail=1; }
grep -qE '^\| [0-9]+ \| [0-9]+/2 \| [0-9.]+ \| ' "$dir/results.md" ||
    { echo "FAIL: no row in the memoryless check"; fail=1; }
# The sensitivity section states the threshold as a band and names what dominates it.
grep -qE '^- \*\*Stall threshold\*\* \(threads\): .* at the preset; across the plausible parameters from .* The parameter that dominates it: `[a-z_]+`' "$dir/results.md" ||
    { echo "FAIL: no threshold band in the sensitivity section"; fail=1; }
[ $fail -eq 0 ] && echo "ok: results.md with $(grep -c '^## ' "$dir/results.md") sections and their plots"
exit $fail
