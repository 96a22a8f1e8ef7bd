#!/usr/bin/env bash
# Issue 49, item 8 (the C++ half): the smaller edges. A stop signal is named
# as what it was; a machine file's duplicate keys and underflowing numbers
# are refused; a trace that would be empty, or would overwrite the machine
# file, is refused; control characters in an argument stay on one line; a
# symlink loop says so; duplicate CPU sets and sensitivity's bad grids are
# refused before anything is written; a huge grid starts without
# enumerating it; a trace stops at its size cap and says so; `--ops` work
# that --seconds does not see done says so. Asserts on messages, statuses
# and files, never on the time anything takes.
set -u
bin="$1"
. "$(cd "$(dirname "$0")" && pwd)/one_line_error.sh"
dir=$(mktemp -d)
trap 'pkill -KILL -f -- "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# SIGTERM and SIGHUP are named in what a stopped run and replay say. The
# signal is sent once the process shows a handler for it (SigCgt in
# /proc/PID/status), never after a guessed sleep; the runs are long enough
# never to end first.
stop_with() {  # stop_with SIGNAL OUTFILE ARGS...: futexsim ARGS, stopped by SIGNAL
    local sig="$1" out="$2" pid i num mask
    shift 2
    num=$(kill -l "$sig")
    "$bin" "$@" >"$out" 2>&1 &
    pid=$!
    for i in $(seq 1 600); do
        mask=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
        [ -n "$mask" ] && (((0x$mask >> (num - 1)) & 1)) && break
        sleep 0.05
    done
    sleep 1  # into the run itself (a stop before it is named the same way)
    kill "-$sig" "$pid"
    wait "$pid"
}
stop_with TERM term.json run --seconds 30 --json
rc=$?
[ "$rc" -eq 143 ] && grep -q 'interrupted by SIGTERM' term.json && echo "ok: run stopped by SIGTERM: 143, 'interrupted by SIGTERM'" ||
    bad "run stopped by SIGTERM: rc=$rc, $(head -c 300 term.json)"
stop_with HUP hup.txt run --seconds 30
rc=$?
[ "$rc" -eq 129 ] && grep -q 'interrupted by SIGHUP' hup.txt && echo "ok: run stopped by SIGHUP: 129, 'interrupted by SIGHUP'" ||
    bad "run stopped by SIGHUP: rc=$rc, $(head -c 300 hup.txt)"
stop_with TERM replay.txt replay --case 'C.C.C.K0:1/W0.W0/W0.W0/K0:1.K0:1' --strategy dfs --cpus 4 --steps 100000
rc=$?
grep -q '^interrupted by SIGTERM: no verdict' replay.txt && echo "ok: replay --strategy dfs stopped by SIGTERM: exit $rc, 'interrupted by SIGTERM: no verdict'" ||
    bad "replay stopped by SIGTERM: rc=$rc, $(tail -c 300 replay.txt)"

# Machine files: a key twice in one object, a number that underflows.
topo='"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 4, "threads_per_core": 1}'
echo "{\"name\": \"m\", \"core_ghz\": 3, $topo}" >m.json
echo "{\"name\": \"m\", \"core_ghz\": 3, $topo, ${topo/4/1}}" >dup.json
echo "{\"name\": \"m\", \"core_ghz\": 3, \"kernel_cpi\": 1e-400, $topo}" >tiny.json
check "'topology' appears twice in one object" run --machine-file dup.json --seconds 0.001
check "'kernel_cpi': 1e-400 is too small for a double" run --machine-file tiny.json --seconds 0.001
echo '{"core_ghz": 3, "core_ghz": 4}' >twice.json
check "'core_ghz' appears twice" sweep --machine-file twice.json --out x.jsonl
[ -e x.jsonl ] && bad "a sweep of a machine file with duplicate keys wrote x.jsonl"

# Traces: a window past the run's end; the machine file as the trace, under
# two spellings of one path.
check "--trace-window '5:10': starts at or after the run's end" run --seconds 0.001 --trace t.json --trace-window 5:10
[ -e t.json ] && bad "an empty --trace-window still wrote t.json"
before=$(md5sum <m.json)
check "--trace 'm.json' is the --machine-file 'm.json'" run --machine-file m.json --trace m.json --seconds 0.001
check "is the --machine-file './m.json'" run --machine-file ./m.json --trace "$dir/m.json" --seconds 0.001
[ "$(md5sum <m.json)" = "$before" ] && echo "ok: the machine file is unchanged" || bad "m.json was overwritten"

# Control characters in an argument stay escaped on the one line.
check "'a\\nb': cannot read" run --machine-file $'a\nb' --seconds 0.001
check "'0-3\\n4'" run --cpus $'0-3\n4'
check "'x\\ty\\x01'" run --policy $'x\ty\x01'
# A symlink loop is named as one, wherever a path is read.
ln -s loop loop
check "--machine-file: 'loop': cannot read: Too many levels of symbolic links" run --machine-file loop
check "report 'loop': cannot read: Too many levels of symbolic links" report loop

# The same CPU set spelled twice, in sweep and in sensitivity.
check "--cpus: '0-3' and '00-03' are the same CPUs" sweep --cpus '0-3;00-03' --out x.jsonl
check "--cpus: '0-3' and '3,2,1,0' are the same CPUs" sweep --cpus '0-3;3,2,1,0' --out x.jsonl
# sensitivity refuses what its sweeps would, before it writes a variant.
check "--cpus '': empty CPU list" sensitivity --cpus '' --out-dir s1
check "--threads: '4' is given twice" sensitivity --threads 4,4 --out-dir s2
for d in s1 s2; do [ -e "$d" ] && bad "sensitivity wrote $d before refusing its grid"; done

# A grid of 409,600,000 runs starts its first runs in 2 GB of address
# space: it is enumerated as it goes, never held. (A sanitizer's shadow
# memory alone reserves terabytes of address space: there the limit says
# nothing, and is left out.)
if ldd "$bin" 2>/dev/null | grep -q 'libasan\|libtsan'; then
    echo "skip: the huge grid under ulimit -v (a sanitizer build)"
else
    (
        ulimit -v 2000000
        timeout 20 "$bin" sweep --threads 1:4096:1 --runs 100000 --large-grid --seconds 0.001 --jobs 1 \
            --out big.jsonl 2>big.err
    )
    grep -q 'bad_alloc\|internal error' big.err && bad "a huge grid ran out of memory: $(grep -m1 'bad_alloc\|internal error' big.err)"
    [ -s big.jsonl ] && echo "ok: sweep --threads 1:4096:1 --runs 100000 --large-grid under ulimit -v 2000000 wrote $(wc -l <big.jsonl) runs in 20 s" ||
        bad "a huge grid wrote no run under ulimit -v: $(tail -c 300 big.err)"
fi

# --trace-max-mb: the trace ends at the cap, is valid JSON, and the run says so.
"$bin" run --threads 96 --seconds 0.01 --json --trace cap.json --trace-max-mb 1 >cap.out 2>/dev/null || bad "the capped trace run failed"
size=$(stat -c %s cap.json)
if grep -q 'the trace reached its size cap (1 MiB) at' cap.out && [ "$size" -lt 2000000 ] &&
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' cap.json; then
    echo "ok: --trace-max-mb 1: a valid $size-byte trace and the warning"
else
    bad "--trace-max-mb 1: $size bytes, $(head -c 300 cap.out)"
fi

# mutex --ops that --seconds does not see done: a warning, no work_ms.
"$bin" run --workload mutex --ops 100000000 --seconds 0.001 --json >ops.json 2>/dev/null
python3 - ops.json <<'PY' && echo "ok: mutex --ops unfinished in --seconds warns" || bad "mutex --ops unfinished: $(head -c 300 ops.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert any(w.startswith("--ops 100000000: ") and "raise --seconds" in w for w in r["warnings"]), r["warnings"]
assert r.get("work_ms", -1) < 0, r
PY
"$bin" sweep --help | grep -q 'lines are written as runs finish' && echo "ok: sweep --help says --jobs writes in completion order" ||
    bad "sweep --help does not say how --jobs orders the lines"

exit $fail
