#!/usr/bin/env bash
# Bad input to futexsim: one line on stderr naming the problem, exit status 2.
set -u
bin="$1"
fail=0
. "$(dirname "$0")/one_line_error.sh"
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
check "--cpus: '1' is not a whole number from 5 to 4096" demo --cpus 1
check "--cpus: '4'" demo --cpus 4
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
check "unknown policy 'nope'" selftests --policy nope
check "unknown machine 'cray'" selftests --machine cray
check "--kernel 'v9'" selftests --kernel v9
check "--runs" selftests --runs 0
check "--hz" selftests --hz 5
check "--machine-file" selftests --machine-file /nonexistent.json
check "--case is required" replay
check "unknown operation 'Z'" replay --case Z9
check "'X9' takes 3 number(s)" replay --case X9
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
check "--out is required" probe
check "--out '/nonexistent/m.json': cannot write" probe --out /nonexistent/m.json
check "--out '/tmp': is a directory, not a regular file" probe --out /tmp
check "--pairs: '0'" probe --out /tmp/futexsim_errors_probe.json --pairs 0
check "--batches: '-1'" probe --out /tmp/futexsim_errors_probe.json --batches -1
check "--syscall-rounds: 'nan'" probe --out /tmp/futexsim_errors_probe.json --syscall-rounds nan
# Numbers are read strictly: decimal, finite, in range, no wrap (issue 12).
check "--interval-ms: 'nan' is not a number from 0.1 to 10000" run --backend kernel --threads 4 --seconds 0.05 --interval-ms nan
check "--interval-ms: 'nan'" run --backend threads --threads 4 --seconds 0.05 --interval-ms nan
check "--interval-ms: 'nan'" run --interval-ms nan
check "--seconds: 'nan' is not a number from 0.001 to 3600" run --seconds nan
check "--seconds: 'inf'" run --seconds inf
check "--seconds: '1e400'" run --seconds 1e400
check "--seconds: 'nan' is not a number from 0.05 to 10" calibrate --seconds nan
check "--ramp-ms: 'nan'" run --ramp-ms nan
check "--ramp-ms: 'nan'" run --backend threads --ramp-ms nan
check "--seed: '-1' is not a whole number from 0 to 18446744073709551615" run --seed -1
check "--seed: '99999999999999999999'" run --seed 99999999999999999999
check "--seed: '' is not a whole number" run --seed ''
check "the runs' seeds would pass 18446744073709551615" run --runs 3 --seed 18446744073709551615
check "--seed: '-1'" replay --case C.K0:1/W0 --seed -1
check "--bound-gps: '-1' is not a whole number from 0 to 1000000" replay --case C.K0:1/W0 --bound-gps -1
check "--threads: '0x10' is not a whole number from 1 to 4096" run --threads 0x10
check "--threads: '1.0'" run --threads 1.0
check "--steps: '1e3'" replay --case W0 --steps 1e3
check "--cpus: '99999999999999999999'" demo --cpus 99999999999999999999
check "--wake-threads: '-2'" calibrate --wake-threads -2
# CPU lists: every element there, every CPU once, no wrap.
check "'99999999999999999999' is not a CPU number" run --cpus 99999999999999999999
check "empty CPU list" run --cpus ''
check "empty element" run --cpus 0-1,
check "empty element" run --cpus 0,,1
check "CPU 2 is listed twice" run --cpus 0-3,2
check "CPU 1 is listed twice" run --backend threads --cpus 1,1
# Hash sizes the model and the kernel can allocate.
check "--presize: '33554432' is not a whole number from 2 to 1048576" run --presize 33554432
check "--presize: '2147483648'" run --presize 2147483648
check "--presize: '16777216'" run --presize 16777216
check "--presize: '33554432'" run --backend threads --presize 33554432
check "power of two from 2 to 1048576" run --presize 96
# Shares, pools and flags that do not apply.
check "--mix '50/40/5': they add up to 95" run --workload mixed-wait --mix 50/40/5
check "--mix '1e308/1e308/0': each share is a number from 0 to 100" run --workload mixed-wait --mix 1e308/1e308/0
check "--mix 'nan/50/50'" run --workload mixed-wait --mix nan/50/50
check "--start-threads 4096: the pool starts with at most --threads (2)" run --workload pool-growth --start-threads 4096 --threads 2
check "--strategy does not apply to --backend threads" run --backend threads --strategy pct
check "--schedule does not apply to --backend kernel" run --backend kernel --schedule 1,0
check "--pct-depth does not apply to --backend threads" run --backend threads --pct-depth 3
check "--pct-depth applies to --strategy pct only" run --strategy fifo --pct-depth 3
check "--pct-depth applies to --strategy pct only" replay --case W0 --pct-depth 3
check "--strategy 'bogus': expected fifo, random, pct, replay or dfs" replay --case W0 --strategy bogus
check "--preemptions applies to --strategy dfs only" replay --case C.K0:1/W0 --preemptions 1
check "--no-reduction applies to --strategy dfs only" replay --case C.K0:1/W0 --no-reduction
check "--max-executions applies to --strategy dfs only" replay --case C.K0:1/W0 --max-executions 5
check "--preemptions: 'x' is not a whole number from 0 to 1000 or 'any'" replay --case C.K0:1/W0 --strategy dfs --preemptions x
check "--preemptions: '-1'" replay --case C.K0:1/W0 --strategy dfs --preemptions -1
check "--schedule does not apply to --strategy dfs" replay --case C.K0:1/W0 --strategy dfs --schedule 1,0
check "--timing 'later': expected steps or choices" replay --case C.K0:1/W0 --timing later
check "--timing steps does not apply to --strategy dfs" replay --case C.K0:1/W0 --strategy dfs --timing steps
check "--gp-ends" replay --case C.K0:1/W0 --strategy dfs --gp-ends -2
check "--gp-ends applies to --timing choices" replay --case C.K0:1/W0 --gp-ends 3
check "--gp-ends applies to --timing choices" replay --case C.K0:1/W0 --timing steps --gp-ends 3
# What a real run cannot honour: a ramp past the run, more bins than memory.
check "--ramp-ms 5000: --backend threads must create its threads within the run (at most --seconds x 1000 = 50 ms)" run --backend threads --threads 2 --seconds 0.05 --ramp-ms 5000
check "--ramp-ms 3600000" run --backend kernel --threads 2 --seconds 60 --ramp-ms 3600000
check "bins x threads" run --backend threads --threads 1024 --seconds 60 --interval-ms 0.1
check "more than 1000000 bins" run --seconds 3600 --interval-ms 0.1
# demo: the ranges help gives all work.
check "--threads: '4' is not a whole number from 5 to 100000" demo --threads 4
check "--threads: '2'" demo --threads 2
# replay: a case must run what it says.
check "--case '': thread 0 has no operations" replay --case ''
check "--case '/': thread 0 has no operations" replay --case /
check "--case '//'" replay --case //
check "--case 'K0:1/W0': thread 1 is never created" replay --case K0:1/W0
check "--case 'C.K0:1/W0/W1': thread 2 is never created" replay --case C.K0:1/W0/W1

# Output that cannot be written is an error, not exit 0 with the result lost.
check_output() {
    local expect="$1" redirect="$2"; shift 2
    local err rc
    case "$redirect" in
    full) err=$("$bin" "$@" 2>&1 >/dev/full); rc=$? ;;
    closed) err=$("$bin" "$@" 2>&1 >&-); rc=$? ;;
    esac
    err=$(printf '%s\n' "$err" | grep -v "$asan_noise")
    if [ "$rc" -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"$expect"* ]]; then
        echo "FAIL: futexsim $* >$redirect -> rc=$rc: $err (wanted '$expect')"
        fail=1
    else
        echo "ok: futexsim $* >$redirect -> $err"
    fi
}
check_output "cannot write to standard output: No space left on device" full run --threads 2 --seconds 0.001
check_output "cannot write to standard output" full run --backend threads --threads 2 --seconds 0.01
check_output "cannot write to standard output" full replay --case C.K0:1/W0
check_output "cannot write to standard output" full demo --cpus 16 --threads 8
check_output "standard output is closed" closed run --threads 2 --seconds 0.001
check_output "standard output is closed" closed run --backend kernel --threads 2 --seconds 0.01

bad=$(mktemp --suffix=.json)
echo '{"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1}, "hz": 5}' > "$bad"
check "'hz' = 5" run --machine-file "$bad"
echo '{"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1}, "colour": 1}' > "$bad"
check "unknown field 'colour'" run --machine-file "$bad"
echo 'not json' > "$bad"
check "is not JSON" run --machine-file "$bad"
# check_machine EXPECT JSON: the same, for a machine file holding JSON.
check_machine() {
    printf '%s\n' "$2" > "$bad"
    check "$1" run --machine-file "$bad"
}
topo='"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 2, "threads_per_core": 1}'
check_machine "'arch' must be a string" "{$topo, \"arch\": 1}"
check_machine "'name' must be a string" "{$topo, \"idle_states\": [{\"name\": 1, \"exit_latency_us\": 1, \"target_residency_us\": 1}]}"
check_machine "is not JSON" '{"topology": {"sockets": 1e400}}'
check_machine "4294967296 logical CPUs" \
    '{"topology": {"sockets": 256, "dies_per_socket": 256, "nodes_per_socket": 1, "cores_per_die": 256, "threads_per_core": 256}}'
check_machine "unknown field 'warp' in 'transfer_ns'" "{$topo, \"transfer_ns\": {\"warp\": 1}}"
check_machine "'transfer_ns' must be an object" "{$topo, \"transfer_ns\": [1, 2]}"
check_machine "'idle_states'[0] needs 'exit_latency_us'" "{$topo, \"idle_states\": [{}]}"
check_machine "'hz' = 250.7 must be a whole number" "{$topo, \"hz\": 250.7}"
check_machine "'sockets' = 1.5 must be a whole number" \
    '{"topology": {"sockets": 1.5, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 2, "threads_per_core": 1}}'
check_machine "'topology' needs 'dies_per_socket'" '{"topology": {"sockets": 2}}'
# --kernel: a known version, and not on the kernel backend (the host runs its own).
check "--kernel 'v9': expected one of v6.17, v7.2, v7.2.1" run --kernel v9 --seconds 0.01
check "--kernel does not apply to --backend kernel" run --backend kernel --kernel v7.2 --threads 2 --seconds 0.01
check "--kernel 'x': expected one of" replay --kernel x --case C
rm -f "$bad"
exit $fail
