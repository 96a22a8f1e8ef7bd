#!/usr/bin/env bash
# futexsim sweep and report: shards (by hand and with GNU parallel), resume
# after a cut-short file and after SIGINT all give exactly the report of the
# unsharded sweep; bad grids and result files are one line and exit 2.
set -u
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
note() { echo "$*"; }
bad() { echo "FAIL: $*"; fail=1; }

# A grid that latches in some cells and not in others: 2 thread counts x 2
# arms x 5 seeds, short runs on 16 CPUs of the Xeon preset (16 auto-scaled
# threads are still pending at the end of 4 ms: 5/5 latched, so the
# threshold's interval [0.57, 1] lies above 1/2).
grid=(--threads 4,16 --arms auto,presize:64 --runs 5 --seconds 0.004 --cpus 0-15 --seed 7)
sweep() { "$bin" sweep "${grid[@]}" "$@"; }
report_all() {  # the report of FILES... in every format, one stream
    for f in md csv json; do "$bin" report --format "$f" "$@" || return 1; done
}

sweep --out "$dir/full.jsonl" --jobs 2 2>/dev/null || bad "the full sweep failed"
[ "$(wc -l <"$dir/full.jsonl")" -eq 20 ] || bad "the full sweep wrote $(wc -l <"$dir/full.jsonl") lines, wanted 20"
report_all "$dir/full.jsonl" >"$dir/full.report" || bad "report of the full sweep failed"
grep -q "20 of 20 runs" "$dir/full.report" || bad "the report does not count 20 of 20 runs"
grep -q "| auto | 4-16 | 16 | 1.00 \[0.57, 1.00\] |" "$dir/full.report" || bad "no stall threshold at 16 threads in the report"

same_as_full() {  # $1: what; then the files to report
    local what="$1"; shift
    if report_all "$@" >"$dir/other.report" && cmp -s "$dir/full.report" "$dir/other.report"; then
        note "ok: $what gives the unsharded report"
    else
        bad "$what: report differs from the unsharded one"; diff "$dir/full.report" "$dir/other.report" | head -20
    fi
}

# Two shards by hand, reported in the other order.
sweep --out "$dir/s1.jsonl" --shard 1/2 --jobs 1 2>/dev/null || bad "shard 1/2 failed"
sweep --out "$dir/s2.jsonl" --shard 2/2 --jobs 1 2>/dev/null || bad "shard 2/2 failed"
same_as_full "shards 1/2 + 2/2" "$dir/s2.jsonl" "$dir/s1.jsonl"

# Three shards through GNU parallel (on this machine; --sshlogin spreads the
# same command over machines, README.md).
if command -v parallel >/dev/null; then
    parallel --will-cite "$bin" sweep "${grid[@]}" --jobs 1 --shard {}/3 --out "$dir/p{}.jsonl" ::: 1 2 3 2>/dev/null ||
        bad "GNU parallel sweep failed"
    same_as_full "3 shards under GNU parallel" "$dir"/p1.jsonl "$dir"/p2.jsonl "$dir"/p3.jsonl
else
    bad "GNU parallel is not installed (setup.sh installs it)"
fi

# Resume: a file cut in the middle of its 6th line is completed by the same command.
head -c "$(head -n 5 "$dir/full.jsonl" | wc -c)" "$dir/full.jsonl" >"$dir/cut.jsonl"
head -n 6 "$dir/full.jsonl" | tail -n 1 | head -c 40 >>"$dir/cut.jsonl"
sweep --out "$dir/cut.jsonl" --jobs 2 2>/dev/null || bad "resuming a cut file failed"
[ "$(wc -l <"$dir/cut.jsonl")" -eq 20 ] || bad "resume left $(wc -l <"$dir/cut.jsonl") lines, wanted 20"
same_as_full "a resumed cut file" "$dir/cut.jsonl"

# SIGINT: exit 130, a valid file, and the same command finishes it. The
# signal goes once the first run is written, while the others still run
# (the sweep takes about 2 s on 2 cores; a fixed sleep raced its end).
long=(--threads 4,8,16 --arms auto --runs 4 --seconds 0.1 --cpus 0-15 --seed 3)
"$bin" sweep "${long[@]}" --out "$dir/int.jsonl" --jobs 2 2>/dev/null &
pid=$!
for _ in $(seq 200); do
    [ -s "$dir/int.jsonl" ] && break
    sleep 0.05
done
kill -0 "$pid" 2>/dev/null || bad "SIGINT: the sweep ended before the signal could be sent"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 130 ] || bad "SIGINT: exit status $rc, wanted 130"
if "$bin" report "$dir/int.jsonl" >/dev/null 2>&1 || [ ! -s "$dir/int.jsonl" ]; then
    note "ok: SIGINT left a valid file ($(wc -l <"$dir/int.jsonl" 2>/dev/null || echo 0) runs)"
else
    bad "SIGINT left a file report refuses"
fi
"$bin" sweep "${long[@]}" --out "$dir/int.jsonl" --jobs 2 2>/dev/null || bad "resume after SIGINT failed"
"$bin" sweep "${long[@]}" --out "$dir/int_full.jsonl" --jobs 2 2>/dev/null || bad "the long sweep failed"
if cmp -s <("$bin" report "$dir/int.jsonl") <("$bin" report "$dir/int_full.jsonl"); then
    note "ok: an interrupted and resumed sweep gives the uninterrupted report"
else
    bad "interrupted + resumed report differs"
fi

# Fast-forward reaches the children, and --exact turns it off in each: a
# presized run is stationary from its first milliseconds.
ff=(--threads 8 --arms presize:64 --runs 1 --seconds 0.06 --cpus 0-15)
"$bin" sweep "${ff[@]}" --out "$dir/ff.jsonl" --jobs 1 2>/dev/null || bad "the fast-forward sweep failed"
"$bin" sweep "${ff[@]}" --exact --out "$dir/exact.jsonl" --jobs 1 2>/dev/null || bad "the --exact sweep failed"
if grep -q '"extrapolated_from_ms"' "$dir/ff.jsonl" && ! grep -q '"extrapolated_from_ms"' "$dir/exact.jsonl"; then
    note "ok: sweep runs are fast-forwarded, and --exact runs are not"
else
    bad "sweep: fast-forward or --exact did not reach the run"
fi

# Bad input: one line, exit status 2.
check() {
    local expect="$1"; shift
    local err rc
    err=$("$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"$expect"* ]]; then
        bad "$* -> rc=$rc: $err (wanted '$expect')"
    else
        note "ok: $err"
    fi
}
check "FROM <= TO" "$bin" sweep --threads 16:8:4 --out "$dir/x.jsonl"
check "not a whole number" "$bin" sweep --threads 16,,32 --out "$dir/x.jsonl"
check "1 <= K <= N" "$bin" sweep --shard 3/2 --out "$dir/x.jsonl"
check "presize:N" "$bin" sweep --arms presize:3 --out "$dir/x.jsonl"
check "unknown policy" "$bin" sweep --policy nope --out "$dir/x.jsonl"
# A machine file under the working directory is named by its relative path,
# so a copy of the folder (a clone of a repository) resumes the sweep.
mkdir -p "$dir/repo/m"
abs_bin=$(realpath "$bin")
printf '{"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 4, "threads_per_core": 1}}\n' \
    >"$dir/repo/m/box.json"
(cd "$dir/repo" && "$abs_bin" sweep --machine-file m/box.json --threads 2 --runs 2 --seconds 0.002 --out r.jsonl 2>/dev/null) ||
    bad "the sweep over a machine file failed"
grep -q '"machine":"file:m/box.json"' "$dir/repo/r.jsonl" || bad "the machine file is not named relative to the working directory"
grep -q "$dir" "$dir/repo/r.jsonl" && bad "the results name a folder outside the working directory"
cp -r "$dir/repo" "$dir/clone"
(cd "$dir/clone" && "$abs_bin" sweep --machine-file m/box.json --threads 2 --runs 2 --seconds 0.002 --out r.jsonl 2>&1) |
    grep -q "already in" || bad "a copy of the folder does not resume the sweep"
# Issue 33, item 21: a sweep over a machine file runs the file, not the
# default preset as well (2 runs, one cell); with --machine given, both.
[ "$(wc -l <"$dir/repo/r.jsonl")" -eq 2 ] && ! grep -q '"machine":"xeon' "$dir/repo/r.jsonl" &&
    note "ok: --machine-file alone sweeps the file only" ||
    bad "--machine-file alone also swept the default preset: $(grep -o '"machine":"[^"]*"' "$dir/repo/r.jsonl" | sort -u | tr '\n' ' ')"
(cd "$dir/repo" && "$abs_bin" sweep --machine-file m/box.json --machine xeon-6975p-snc3 --threads 2 --runs 1 \
    --seconds 0.002 --out both.jsonl 2>/dev/null) || bad "a sweep over a file and a preset failed"
[ "$(grep -c '"cell":{"machine":"xeon-6975p-snc3"' "$dir/repo/both.jsonl")" -eq 1 ] &&
    [ "$(grep -c '"cell":{"machine":"file:m/box.json"' "$dir/repo/both.jsonl")" -eq 1 ] &&
    note "ok: --machine-file with --machine sweeps both" || bad "--machine-file with --machine: $(cat "$dir/repo/both.jsonl")"
# Item 8: the file's content is in the grid id; a resume after it changed
# refuses, naming the file, and leaves --out as it was; put back, it resumes.
cp "$dir/repo/r.jsonl" "$dir/r.before"
cp "$dir/repo/m/box.json" "$dir/box.orig"
sed -i 's/"cores_per_die": 4/"cores_per_die": 2/' "$dir/repo/m/box.json"
(cd "$dir/repo" && check "--machine-file m/box.json: changed since the runs in --out r.jsonl were made" \
    "$abs_bin" sweep --machine-file m/box.json --threads 2 --runs 2 --seconds 0.002 --out r.jsonl)
cmp -s "$dir/repo/r.jsonl" "$dir/r.before" || bad "the refused resume changed --out"
cp "$dir/box.orig" "$dir/repo/m/box.json"
(cd "$dir/repo" && "$abs_bin" sweep --machine-file m/box.json --threads 2 --runs 2 --seconds 0.002 --out r.jsonl 2>&1) |
    grep -q "already in" && note "ok: the file put back, the sweep resumes" || bad "the file put back does not resume"
# Item 18: the grid's size is said at once, and a grid of more than
# 1000000 runs is refused unless --large-grid (then a shard of one run runs
# that run, enumerating nothing else).
huge=(--threads 1:4096:1 --runs 100000 --seconds 0.001 --cpus 0)
check "the grid has 409600000 runs (4096 cells x --runs 100000), more than 1000000: pass --large-grid" \
    "$bin" sweep "${huge[@]}" --shard 1/1000000000 --out "$dir/huge.jsonl"
[ -e "$dir/huge.jsonl" ] && bad "the refused grid left --out behind"
"$bin" sweep "${huge[@]}" --large-grid --shard 1/1000000000 --jobs 1 --out "$dir/huge.jsonl" 2>"$dir/huge.err" ||
    bad "a shard of one run of a large grid failed: $(cat "$dir/huge.err")"
head -n 1 "$dir/huge.err" | grep -q "^sweep: grid [0-9a-f]*: 4096 cells x 100000 runs = 409600000 runs, 1 of them in shard 1/1000000000$" &&
    [ "$(wc -l <"$dir/huge.jsonl")" -eq 1 ] && note "ok: $(head -n 1 "$dir/huge.err")" ||
    bad "a large grid's shard: $(head -n 1 "$dir/huge.err"), $(wc -l <"$dir/huge.jsonl") lines"

check "another sweep" "$bin" sweep --threads 4 --runs 1 --seconds 0.004 --cpus 0-15 --out "$dir/full.jsonl"
check "a different sweep" "$bin" report "$dir/full.jsonl" "$dir/int.jsonl"
head -c 100 "$dir/full.jsonl" >"$dir/cut_only.jsonl"
check "cut short" "$bin" report "$dir/cut_only.jsonl"
check "cannot read" "$bin" report "$dir/missing.jsonl"
echo '{"hello":1}' >"$dir/junk.jsonl"
check "not a sweep result" "$bin" report "$dir/junk.jsonl"
sed 's/"sweep_version":1/"sweep_version":9/' "$dir/full.jsonl" >"$dir/v9.jsonl"
check "format version 9" "$bin" report "$dir/v9.jsonl"
exit $fail
