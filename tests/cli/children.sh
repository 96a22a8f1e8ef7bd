#!/usr/bin/env bash
# Issue 33, items 12-14: SIGINT, SIGTERM and SIGHUP stop a sweep (and a
# sensitivity, which runs sweeps) at a safe point, with 128 + the signal,
# and no process it started outlives it; a closed progress stream
# (`sweep 2>&1 | head`) stops it the same way. Counts the processes, never
# the time they take.
set -u
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

. "$(cd "$(dirname "$0")" && pwd)/process_tree.sh"
# Long runs: each child takes seconds, so the signal lands while they run.
# Each sweep has its own seeds, so that its runs (`futexsim run ... --seed
# N`) can be found by their command line even once orphaned.
long=(--threads 96 --runs 8 --seconds 2 --exact)
orphans() { pgrep -f -- "run --json .*--seed $1[0-9]\b" | wc -l; }

seed=9100
for sig in INT TERM HUP; do
    seed=$((seed + 100))
    "$bin" sweep "${long[@]}" --seed "$seed" --jobs 2 --out "$dir/$sig.jsonl" 2>"$dir/$sig.err" &
    pid=$!
    wait_for_runs "$pid" 2 || bad "sweep never started its runs"
    kids=$(descendants "$pid" | wc -l)
    kill -"$sig" "$pid"
    wait "$pid"; rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || bad "sweep on SIG$sig exits $rc, wanted $want: $(tail -n 1 "$dir/$sig.err")"
    grep -q "sweep: interrupted; 0 of 8 runs are in" "$dir/$sig.err" || bad "sweep on SIG$sig: no 'interrupted' line"
    left=$(orphans $((seed / 10)))
    [ "$left" -eq 0 ] && echo "ok: SIG$sig: sweep exits $rc and none of its $kids children outlives it" ||
        bad "SIG$sig: $left of the sweep's runs outlived it"
done

# A closed progress stream: the sweep stops, its children with it, and
# every line of --out is whole.
seed=9900
"$bin" sweep "${long[@]}" --seed "$seed" --jobs 2 --out "$dir/pipe.jsonl" 2>&1 | head -c 0
rc=${PIPESTATUS[0]}
[ "$rc" -eq 130 ] || bad "sweep with its progress stream closed exits $rc, wanted 130"
left=$(orphans $((seed / 10)))
[ "$left" -eq 0 ] && echo "ok: a closed progress stream stops the sweep (exit $rc) and its children" ||
    bad "a closed progress stream left $left runs running"
if [ -s "$dir/pipe.jsonl" ] && [ "$(tail -c 1 "$dir/pipe.jsonl" | od -An -c | tr -d ' ')" != '\n' ]; then
    bad "a closed progress stream left a half-written line"
fi

# sensitivity: SIGINT to it alone reaches the sweep and the runs under it.
"$bin" sensitivity --params hz --threads 48,96 --runs 2 --seconds 2 --out-dir "$dir/sens" >"$dir/sens.out" 2>"$dir/sens.err" &
pid=$!
wait_for_runs "$pid" 2 || bad "sensitivity never started its sweep's runs"
kids=$(descendants "$pid" | wc -l)
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 130 ] || bad "sensitivity on SIGINT exits $rc, wanted 130: $(tail -n 1 "$dir/sens.err")"
grep -q "interrupted" "$dir/sens.err" || bad "sensitivity on SIGINT: no 'interrupted' line"
[ -s "$dir/sens.out" ] && bad "sensitivity on SIGINT printed a table"
left=$(pgrep -f -- "$dir/sens" | wc -l)
[ "$left" -eq 0 ] && echo "ok: SIGINT: sensitivity exits $rc and none of its $kids descendants outlives it" ||
    bad "sensitivity: $left of its descendants outlived it"

# Issue 33, item 12: Ctrl-C, SIGINT to the whole process group at once
# (sensitivity, its sweep and the runs): the same, and it says what was done.
setsid "$bin" sensitivity --params hz --threads 48,96 --runs 2 --seconds 2 --out-dir "$dir/pg" \
    >"$dir/pg.out" 2>"$dir/pg.err" &
pid=$!
wait_for_runs "$pid" 2 || bad "sensitivity (own process group) never started its sweep's runs"
kids=$(descendants "$pid" | wc -l)
kill -INT -- "-$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 130 ] || bad "sensitivity on SIGINT to its process group exits $rc, wanted 130: $(tail -n 1 "$dir/pg.err")"
grep -q "interrupted: sensitivity stopped in the auto-scaled sweep (1 of 2): [0-9]* of 12 runs are in $dir/pg/auto.jsonl; the same command resumes" "$dir/pg.err" ||
    bad "sensitivity on SIGINT to its process group does not say what was done: $(cat "$dir/pg.err")"
[ -s "$dir/pg.out" ] && bad "sensitivity on SIGINT to its process group printed a table"
left=$(pgrep -f -- "$dir/pg" | wc -l)
[ "$left" -eq 0 ] && echo "ok: SIGINT to the process group: sensitivity exits $rc, says $(grep -o '[0-9]* of 12 runs' "$dir/pg.err"), and none of its $kids descendants outlives it" ||
    bad "sensitivity (process group): $left of its descendants outlived it"
exit $fail
