#!/usr/bin/env bash
# Issue 33, items 10 and 22: the throughput bins of a run that is not a
# whole number of bins long, and `seconds` of a real run with --ops.
#   - the last, shorter bin is kept and its rate is over its own width, so
#     the bins (rate x width) sum to `ops`: 15 ms in bins of 10 ms (the last
#     one 5 ms), 10 ms in bins of 3 ms (the last one 1 ms, dropped before);
#   - a whole number of bins is as before (README's line, byte for byte);
#   - mutex --ops on a real backend: `seconds` is the time the work took
#     (work_ms), not when the watchdog noticed, and mops is ops / seconds.
set -u
bin="$1"
readme="$2"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# check_bins WHAT JSON: per_interval_mops x each bin's width sums to ops
# (within a hundredth of an operation per bin), with the widths given.
check_bins() {
    local what="$1" json="$2"; shift 2
    python3 - "$json" "$@" <<'PY' && echo "ok: $what" || bad "$what: $json"
import json, sys
j = json.loads(sys.argv[1])
widths = [float(w) for w in sys.argv[2:]]
bins = j["per_interval_mops"]
assert len(bins) == len(widths), (len(bins), widths)
total = sum(m * w * 1e3 for m, w in zip(bins, widths))
assert abs(total - j["ops"]) < 0.01 * len(bins) + 1e-6, (total, j["ops"])
PY
}
check_bins "15 ms in bins of 10 ms: 10 + 5 ms, summing to ops" \
    "$("$bin" run --seconds 0.015 --interval-ms 10 --json --exact)" 10 5
check_bins "10 ms in bins of 3 ms: 3 + 3 + 3 + 1 ms, summing to ops" \
    "$("$bin" run --seconds 0.01 --interval-ms 3 --json --exact)" 3 3 3 1
check_bins "20 ms in bins of 10 ms: two whole bins" \
    "$("$bin" run --seconds 0.02 --interval-ms 10 --json --exact)" 10 10

# README's example line, byte for byte (a whole number of bins).
want=$(grep -E '^    threads=96 slots\(' "$readme" | head -n 1 | sed 's/^    //')
got=$("$bin" run --threads 96 --cpus 0-95 --seconds 1 --seed 2)
[ -n "$want" ] && [ "$got" = "$want" ] && echo "ok: README's line: $got" || bad "README's line: got '$got', README says '$want'"

for backend in threads kernel; do
    json=$("$bin" run --backend "$backend" --workload mutex --ops 20000 --threads 4 --seconds 10 --json) ||
        { bad "--backend $backend --ops failed"; continue; }
    python3 - "$json" <<'PY' && echo "ok: --backend $backend --ops: seconds is work_ms, mops is ops / seconds" ||
import json, sys
j = json.loads(sys.argv[1])
assert j["ops"] == 20000, j["ops"]
assert abs(j["seconds"] * 1e3 - j["work_ms"]) < 1e-6, (j["seconds"], j["work_ms"])
assert abs(j["mops"] - j["ops"] / j["seconds"] / 1e6) < 1e-9 * j["mops"], j["mops"]
bins, w = j["per_interval_mops"], j["interval_ms"]
last = j["seconds"] * 1e3 - (len(bins) - 1) * w
assert 0 < last <= w + 1e-9, (last, len(bins))
total = sum(m * w * 1e3 for m in bins[:-1]) + bins[-1] * last * 1e3
assert abs(total - j["ops"]) < 0.01 * len(bins), (total, j["ops"])
PY
        bad "--backend $backend --ops: $json"
done
exit $fail
