#!/usr/bin/env bash
# The progress detectors on the command line: a run that stops making
# progress for good (the test-only workload test-stuck-spinlock of
# futexsim-stuck, tests/sim/stuck_workloads.h) warns in `run`'s human line
# and JSON, in a sweep's lines and in `report`'s count per cell, and still
# ends; --fail-on-warning exits 1 at the first warning, in run and sweep;
# the bounds are the user's and a sweep passes them on.
#   detectors.sh FUTEXSIM-STUCK
set -u
bin="$1"
fail=0
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok: $*"; }
stuck=(--workload test-stuck-spinlock --threads 2 --seconds 0.3)

# run: every warning on the human line, the run ends with status 0.
line=$(timeout 120 "$bin" run "${stuck[@]}"); rc=$?
[ "$rc" -eq 0 ] || bad "run of the stuck workload: rc=$rc"
for w in "WARNING(rcu-stall: grace period 1 " "2 CPUs hold it" "WARNING(soft-lockup: CPU#" "[holder])" \
         "WARNING(spin-lockup: spinner on CPU" "held by holder"; do
    [[ "$line" == *"$w"* ]] && ok "run line: $w" || bad "run line lacks '$w': $line"
done
# JSON: the same warnings under "warnings".
timeout 120 "$bin" run "${stuck[@]}" --json >run.json || bad "run --json failed"
/usr/bin/python3 - run.json <<'PY' || fail=1
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
kinds = sorted({x.split(":")[0] for x in w})
if kinds != ["rcu-stall", "soft-lockup", "spin-lockup"]:
    print("FAIL: run --json warnings:", w); sys.exit(1)
print("ok: run --json warnings:", kinds)
PY

# --fail-on-warning: exit 1 at the first warning, the line still printed.
out=$(timeout 120 "$bin" run "${stuck[@]}" --fail-on-warning 2>err); rc=$?
if [ "$rc" -eq 1 ] && [[ "$out" == *"WARNING(stopped at the first warning (--fail-on-warning))"* ]] &&
   grep -q "^futexsim: the run warned (--fail-on-warning): spin-lockup: " err; then
    ok "run --fail-on-warning: exit 1, $(cat err)"
else
    bad "run --fail-on-warning: rc=$rc out=$out err=$(cat err)"
fi
# A healthy run with --fail-on-warning exits 0; one with a bound it passes exits 1.
timeout 120 "$bin" run --threads 8 --seconds 0.05 --fail-on-warning >/dev/null || bad "a healthy run warned"
out=$(timeout 120 "$bin" run --threads 8 --seconds 0.05 --max-events-per-ms 10 2>&1)
[[ "$out" == *"WARNING(event-storm: "*"events per virtual ms"*"busiest: "* ]] && ok "event-storm at a low bound" ||
    bad "no event-storm warning at --max-events-per-ms 10: $out"

# sweep + report: the stuck cell warns, the healthy one does not.
timeout 300 "$bin" sweep --workload test-stuck-spinlock,wake-nowaiters --threads 2 --seconds 0.3 --jobs 1 \
    --out s.jsonl 2>/dev/null || bad "sweep failed"
"$bin" report s.jsonl >report.md || bad "report failed"
grep -q "| test-stuck-spinlock | .* | 1 (rcu-stall 1, soft-lockup 1, spin-lockup 1) |$" report.md &&
    ok "report counts the stuck cell's warnings" || { bad "report: no warned count"; cat report.md; }
grep -q "| wake-nowaiters | .* | 0 |$" report.md && ok "report: the healthy cell warned 0" || bad "report: healthy cell"
"$bin" report --format csv s.jsonl | grep -q "^xeon-6975p-snc3,stock,test-stuck-spinlock,.*,1,1,1,1,0,0$" &&
    ok "report csv: warned per kind" || bad "report csv lacks the per-kind counts"

# A sweep's bounds reach its runs and make another grid.
timeout 300 "$bin" sweep --threads 8 --seconds 0.05 --max-events-per-ms 10 --out b.jsonl 2>/dev/null ||
    bad "sweep with a bound failed"
grep -q '"event-storm: ' b.jsonl && ok "sweep passes --max-events-per-ms on" || bad "sweep: no event-storm line"
"$bin" report b.jsonl | grep -q "1 (event-storm 1)" && ok "report: event-storm counted" || bad "report: event-storm"
[ "$(head -c 200 b.jsonl | grep -o '"grid_id":"[0-9a-f]*"')" != \
  "$(timeout 300 "$bin" sweep --threads 8 --seconds 0.05 --out c.jsonl 2>/dev/null; head -c 200 c.jsonl | grep -o '"grid_id":"[0-9a-f]*"')" ] &&
    ok "a bound given makes another grid id" || bad "the grid id ignores the bounds"

# sweep --fail-on-warning: exit 1 naming the run, its line not written.
timeout 300 "$bin" sweep --workload test-stuck-spinlock,wake-nowaiters --threads 2 --seconds 0.3 --jobs 1 \
    --out f.jsonl --fail-on-warning 2>err; rc=$?
if [ "$rc" -eq 1 ] && grep -q "^sweep: run 0 (.*) warned: spin-lockup: " err && [ ! -s f.jsonl ]; then
    ok "sweep --fail-on-warning: exit 1, $(grep warned: err | cut -c1-80)..."
else
    bad "sweep --fail-on-warning: rc=$rc, $(wc -l <f.jsonl) lines, err: $(cat err)"
fi

# Bad bounds: one line, exit 2.
. "$here/one_line_error.sh"
check "--spin-limit-ms" run --spin-limit-ms 0
check "--rcu-stall-timeout-ms" run --rcu-stall-timeout-ms nan
check "--watchdog-thresh-ms does not apply to --backend threads" run --backend threads --watchdog-thresh-ms 5
exit $fail
