#!/usr/bin/env bash
# Issue 49, items 1-4: the edges between processes and files. A closed
# stderr never puts progress into the results; a second writer of one
# results file is refused while the first goes on; `kill -9` of a sweep or
# of sensitivity leaves none of their runs alive 1 s later, and the same
# command then resumes; a machine file edited during a sweep stops it
# before any run uses the new content. Counts processes and lines, never
# the time anything takes.
set -u
bin="$1"
. "$(cd "$(dirname "$0")" && pwd)/one_line_error.sh"
. "$(cd "$(dirname "$0")" && pwd)/process_tree.sh"
dir=$(mktemp -d)
trap 'pkill -KILL -f -- "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# wait_for_lines FILE N: until FILE holds N lines.
wait_for_lines() {
    local i
    for i in $(seq 1 1200); do
        [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}
# Every process whose command line names this test's folder (the sweeps'
# --out and the runs' --machine-file all do).
alive() { pgrep -f -- "$dir/" | wc -l; }
# kill9_leaves_none PID N WHAT KIDS: once PID has N processes below it,
# kill -9 it; 1 s later no process of this test's folder may be alive.
kill9_leaves_none() {
    local pid="$1" kids left
    wait_for_runs "$pid" "$2" || bad "$3 never started its runs"
    kids=$(descendants "$pid" | wc -l)
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    sleep 1
    left=$(alive)
    [ "$left" -eq 0 ] && echo "ok: kill -9 of $3: none of its $kids $4 is alive 1 s later" ||
        bad "kill -9 of $3: $left of its processes alive 1 s later: $(pgrep -af -- "$dir/")"
}

# Item 1: stderr closed (and stdin): the progress goes nowhere, never into
# --out, whose lines report reads.
"$bin" sweep --threads 4 --cpus 0-3 --seconds 0.001 --runs 3 --jobs 1 --out z.jsonl 2>&- <&-; rc=$?
[ "$rc" -eq 0 ] || bad "sweep with stderr closed exits $rc"
lines=$(wc -l <z.jsonl)
[ "$lines" -eq 3 ] || bad "sweep with stderr closed wrote $lines lines to --out, wanted 3: $(head -c 200 z.jsonl)"
"$bin" report z.jsonl >/dev/null 2>&1 && echo "ok: sweep 2>&- <&- leaves 3 result lines that report reads" ||
    bad "report refuses the file of a sweep with stderr closed: $("$bin" report z.jsonl 2>&1 >/dev/null)"
# A run with stderr closed writes its line; with stdout closed it is refused.
out=$("$bin" run --seconds 0.001 --json 2>&- <&-) && [ "${out:0:1}" = "{" ] &&
    echo "ok: run 2>&- <&- prints its line" || bad "run with stderr closed: '$out'"
"$bin" run --seconds 0.001 >&- 2>/dev/null; rc=$?
[ "$rc" -eq 2 ] && echo "ok: run >&- exits 2" || bad "run with stdout closed exits $rc, wanted 2"

# Long runs for the races below: each takes a second or more of CPU.
machine="$dir/m.json"
cat >"$machine" <<'JSON'
{"name": "hostile", "core_ghz": 3.0, "hz": 250,
 "topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 16, "threads_per_core": 1}}
JSON
long=(--machine-file "$machine" --threads 16 --seconds 0.3 --exact --cpus 0-15)

# Item 2: the same sweep started twice: the second is refused in one line
# while the first holds the file, and the file ends with every run once.
"$bin" sweep "${long[@]}" --runs 4 --jobs 1 --seed 100 --out "$dir/two.jsonl" 2>/dev/null &
first=$!
wait_for_runs "$first" 1 || bad "the first sweep never started a run"
check "--out $dir/two.jsonl: another futexsim is writing it" sweep "${long[@]}" --runs 4 --jobs 1 --seed 100 \
    --out "$dir/two.jsonl"
wait "$first" || bad "the first sweep failed once a second was refused"
lines=$(wc -l <two.jsonl)
unique=$(python3 -c 'import json,sys; print(len({json.loads(l)["run_index"] for l in open(sys.argv[1])}))' two.jsonl)
[ "$lines" -eq 4 ] && [ "$unique" -eq 4 ] && echo "ok: two writers: the file holds each of the 4 runs once" ||
    bad "two writers: $lines lines, $unique runs"
"$bin" report two.jsonl >/dev/null || bad "report refuses the file the first writer finished"
# The same for sensitivity's --out-dir.
sens=(--machine-file "$machine" --params hz --threads 8,16 --runs 2 --seconds 0.3 --cpus 0-15)
"$bin" sensitivity "${sens[@]}" --out-dir "$dir/sens2" >/dev/null 2>&1 &
first=$!
wait_for_runs "$first" 2 || bad "the first sensitivity never started its sweep"
check "--out-dir $dir/sens2: another futexsim is writing it" sensitivity "${sens[@]}" --out-dir "$dir/sens2"
kill -INT "$first"; wait "$first"

# Item 3: kill -9 of a sweep: its runs die with it (PR_SET_PDEATHSIG),
# and the same command resumes to a file of each run once.
"$bin" sweep "${long[@]}" --runs 6 --jobs 2 --seed 200 --out "$dir/k9.jsonl" 2>/dev/null &
kill9_leaves_none "$!" 2 "a sweep" runs
"$bin" sweep "${long[@]}" --runs 6 --jobs 2 --seed 200 --out "$dir/k9.jsonl" 2>/dev/null ||
    bad "the sweep's resume after kill -9 failed"
[ "$(wc -l <k9.jsonl)" -eq 6 ] && "$bin" report k9.jsonl >/dev/null && echo "ok: the same sweep resumes after kill -9" ||
    bad "after kill -9 and resume, k9.jsonl has $(wc -l <k9.jsonl) lines"
# kill -9 of sensitivity: its sweep and that sweep's runs die with it, and
# the same command resumes.
"$bin" sensitivity "${sens[@]}" --out-dir "$dir/sens9" >/dev/null 2>&1 &
kill9_leaves_none "$!" 3 sensitivity descendants
"$bin" sensitivity "${sens[@]}" --out-dir "$dir/sens9" >sens9.out 2>sens9.err &&
    echo "ok: the same sensitivity resumes after kill -9" ||
    bad "the same sensitivity after kill -9: $(tail -n 1 sens9.err)"

# Item 4: the machine file edited during a sweep: the sweep stops, naming
# the file, before a run uses the new content; restored, the same sweep
# resumes, and every line is of the content it hashed.
"$bin" sweep "${long[@]}" --runs 8 --jobs 1 --seed 300 --out "$dir/edit.jsonl" 2>edit.err &
pid=$!
wait_for_lines edit.jsonl 1 || bad "the sweep never wrote its first line"
cp "$machine" m.orig
sed -i 's/"core_ghz": 3.0/"core_ghz": 0.5/' "$machine"
wait "$pid"; rc=$?
[ "$rc" -eq 2 ] && grep -q "m.json.*changed since the sweep read it" edit.err &&
    echo "ok: an edited machine file stops the sweep: $(grep -m1 changed edit.err)" ||
    bad "a machine file edited during the sweep: exit $rc, $(tail -n 2 edit.err)"
cp m.orig "$machine"
"$bin" sweep "${long[@]}" --runs 8 --jobs 1 --seed 300 --out "$dir/edit.jsonl" 2>/dev/null ||
    bad "the sweep did not resume once the file was restored"
# Each run at 0.5 GHz would be several times slower than at 3 GHz.
spread=$(python3 -c '
import json, sys
m = [json.loads(l)["run"]["mops"] for l in open(sys.argv[1])]
print(len(m), "%.2f" % (max(m) / min(m)))' edit.jsonl)
[ "${spread% *}" -eq 8 ] && python3 -c "import sys; sys.exit(not float('${spread#* }') < 1.5)" &&
    echo "ok: after the edit and the resume, 8 runs, max/min mops ${spread#* }" ||
    bad "after the edit: runs and max/min mops $spread (a run used the edited file?)"
exit $fail
