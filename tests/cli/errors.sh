#!/usr/bin/env bash
# Bad input to futexsim: one line on stderr naming the problem, exit status 2.
set -u
bin="$1"
fail=0
check() {
    local expect="$1"; shift
    local err rc
    err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
    local lines
    lines=$(printf '%s\n' "$err" | wc -l)
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [[ "$err" != *"$expect"* ]]; then
        echo "FAIL: futexsim $* -> rc=$rc, $lines line(s): $err (wanted '$expect')"
        fail=1
    else
        echo "ok: futexsim $* -> $err"
    fi
}
check "unknown command 'bogus'" bogus
check "A subcommand is required"
check "--what" run --what
check "power of two" run --presize 15
check "excludes" run --presize 16 --global-hash
check "CPU 999" run --cpus 0-999
check "backwards" run --cpus 5-1
check "unknown machine 'cray'" run --machine cray
check "unknown workload 'nope'" run --workload nope
check "unknown policy 'nope'" run --policy nope
check "does not apply to workload 'wake-nowaiters'" run --locks 4
check "does not apply to workload 'mutex'" run --workload mutex --mix 1/2/3
check "does not apply to workload 'hash-bench'" run --workload hash-bench --ops 10
check "does not apply to workload 'hash-bench'" run --workload hash-bench --ops 10
check "--mix '1/2'" run --workload mixed-wait --mix 1/2
check "--threads" run --threads 0
check "--threads" run --threads 5000
check "--seconds" run --seconds 0
check "--unlock" run --workload mutex --unlock maybe
check "--machine-file" run --machine-file /nonexistent.json
check "--cpus" demo --cpus 1
check "--strategy 'bogus'" run --strategy bogus
check "--pct-depth" run --pct-depth 0
check "--schedule '1,,2'" run --schedule 1,,2
check "--trace does not apply to --backend threads" run --backend threads --trace /tmp/futexsim_errors_trace.json
check "--trace does not apply to --backend kernel" run --backend kernel --trace /tmp/futexsim_errors_trace.json
check "--trace-window '5:1'" run --seconds 0.001 --trace /tmp/futexsim_errors_trace.json --trace-window 5:1
check "--trace-window 'x'" run --seconds 0.001 --trace /tmp/futexsim_errors_trace.json --trace-window x
check "--trace-window '0:'" run --seconds 0.001 --trace /tmp/futexsim_errors_trace.json --trace-window 0:
check "--trace-window needs --trace" run --seconds 0.001 --trace-window 0:1
check "--runs 2 must be 1" run --seconds 0.001 --trace /tmp/futexsim_errors_trace.json --runs 2
check "--trace '/nonexistent/t.json': cannot write" run --seconds 0.001 --trace /nonexistent/t.json
rm -f /tmp/futexsim_errors_trace.json
check "--case is required" replay
check "unknown operation 'X'" replay --case X9
check "words are 0-3" replay --case W7
check "--strategy 'bogus'" replay --case W0 --strategy bogus
check "--pct-depth" replay --case W0 --pct-depth 0
check "--schedule '1,x'" replay --case W0 --schedule 1,x
check "unknown policy 'nope'" replay --case W0 --policy nope
check "--liveness 'maybe'" replay --case W0 --liveness maybe
check "--cpus" replay --case W0 --cpus 0
check "--backend" run --backend bogus
check "--machine does not apply to --backend threads" run --backend threads --machine host
check "--machine-file does not apply to --backend kernel" run --backend kernel --machine-file /etc/hostname
check "--seed does not apply to --backend kernel" run --backend kernel --seed 3
check "--policy does not apply to --backend kernel" run --backend kernel --policy stock
check "--precheck does not apply to --backend kernel" run --backend kernel --precheck
check "at most 1024 threads" run --backend threads --threads 2000
check "at most 60 s" run --backend kernel --seconds 100
check "CPU 4096" run --backend threads --cpus 0,4096
check "CPU 4096" run --backend kernel --cpus 4096
check "does not apply to workload 'wake-nowaiters'" run --backend threads --locks 2
check "unknown policy 'nope'" run --backend threads --policy nope
check "--samples" calibrate --samples 5
check "--wake-threads" calibrate --wake-threads 0
check "--stall-threads" calibrate --stall-threads 2000
bad=$(mktemp --suffix=.json)
echo '{"topology": {"sockets": 1}, "hz": 5}' > "$bad"
check "'hz' = 5" run --machine-file "$bad"
echo '{"topology": {"sockets": 1}, "colour": 1}' > "$bad"
check "unknown field 'colour'" run --machine-file "$bad"
echo 'not json' > "$bad"
check "is not JSON" run --machine-file "$bad"
rm -f "$bad"
exit $fail
