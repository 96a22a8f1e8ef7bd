#!/usr/bin/env bash
# SIGINT in the middle of every long-running command: it stops at its next
# safe point, prints what it had done, and exits with status 130, within a
# bound; a real run joins its threads first. Behaviour only: the bounds are
# how long we wait before declaring a hang, not measurements.
#   sigint.sh FUTEXSIM real   the real backends (their threads: also under TSan)
#   sigint.sh FUTEXSIM sim    the simulator, replay and calibrate (fibers on
#                             one thread, which TSan cannot follow)
#   sigint.sh FUTEXSIM-MUTANTS mutants   futexsim-mutants' replay
set -u
bin="$1"
which="$2"
fail=0

# interrupt NAME WAIT_FOR PATTERN COMMAND...: starts COMMAND, waits until
# WAIT_FOR is true of it ("threads:N": N threads exist; "sleep:S": S
# seconds passed; "handler": main() has installed its SIGINT handler, its
# first act, which is as early as a program can take SIGINT at all; before
# it a background job of a script ignores SIGINT; "handler+sleep:S": the
# handler, then S seconds more), sends SIGINT, and wants exit 130 within
# 10 s and PATTERN in its output.
wait_for_handler() {
    # SigCgt: the signals it catches, in hex; SIGINT (2) is bit 1.
    for _ in $(seq 1 1000); do
        caught=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0)
        (( 0x${caught:-0} & 2 )) && return
        sleep 0.01
    done
}

interrupt() {
    local name="$1" wait_for="$2" pattern="$3"; shift 3
    local out; out=$(mktemp)
    "$bin" "$@" >"$out" 2>&1 &
    local pid=$!
    case "$wait_for" in
    handler+sleep:*) wait_for_handler "$pid"; sleep "${wait_for#handler+sleep:}" ;;
    threads:*)
        for _ in $(seq 1 100); do
            n=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
            [ "${n:-0}" -ge "${wait_for#threads:}" ] && break
            sleep 0.05
        done ;;
    sleep:*) sleep "${wait_for#sleep:}" ;;
    handler) wait_for_handler "$pid" ;;
    esac
    kill -INT "$pid"
    for _ in $(seq 1 200); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "FAIL: $name: still running 10 s after SIGINT (threads: $(awk '/^Threads:/ {print $2}' /proc/$pid/status))"
        kill -KILL "$pid"
        fail=1
    else
        wait "$pid"; local rc=$?
        if [ "$rc" -ne 130 ] || { [ -n "$pattern" ] && ! grep -q -- "$pattern" "$out"; }; then
            echo "FAIL: $name: rc=$rc (130 wanted), output (wanted '$pattern'): $(head -c 2000 "$out")"
            fail=1
        else
            echo "ok: $name: exit 130 after SIGINT: $(head -c 160 "$out" | tr '\n' ' ')"
        fi
    fi
    rm -f "$out"
}

if [ "$which" = mutants ]; then
    interrupt "futexsim-mutants replay" handler+sleep:1 'interrupted by SIGINT: no verdict' \
        replay --policy mutant-eager-install --case 'C.K0:1*/K1:1*' --steps 10000000 --liveness none --quiet
    exit $fail
fi
if [ "$which" = real ]; then
for backend in threads kernel; do
    interrupt "$backend run" threads:9 '"interrupted":true' run --backend "$backend" --threads 8 --seconds 30 --json
    # A ramp that spreads the threads over the whole minute: SIGINT ends the wait.
    interrupt "$backend ramp" handler+sleep:1 '"interrupted":true' \
        run --backend "$backend" --threads 2 --seconds 60 --ramp-ms 59000 --json
done
# Right after the start, before any work: never fatal.
interrupt "real run, early SIGINT" handler '' run --backend threads --threads 8 --seconds 30
exit $fail
fi
# The simulator: the result of the virtual time simulated so far.
interrupt "sim run" handler+sleep:1 '"interrupted":true' run --threads 96 --seconds 3600 --json
interrupt "sim run, early SIGINT" handler '' run --threads 96 --seconds 3600
# --exact: fast-forwarded, each of these runs takes well under a second, so
# the SIGINT could land between two runs (which ends the command too, with
# no run interrupted to report) or after the last; exact, it lands in the
# first.
interrupt "sim runs" handler+sleep:1 'WARNING(interrupted by SIGINT)' run --threads 8 --seconds 3600 --runs 3 --exact
# Runs of about a millisecond each: the SIGINT lands in one (its line says
# so) or between two ("interrupted by SIGINT before run K of N"); never
# silent either way. The delays count from the handler's installation: a
# plain delay from the start raced the start-up (under ASan on a loaded
# machine the SIGINT sometimes came before main(), while the background
# job still ignored it, and the 100000 runs went on).
for delay in 0.1 0.3 0.6; do
    interrupt "sim runs, SIGINT in or between runs ($delay s)" handler+sleep:$delay 'interrupted by SIGINT' \
        run --threads 1 --seconds 0.001 --runs 100000
done
# replay: the trace so far, no verdict.
interrupt "replay" handler+sleep:1 'interrupted by SIGINT: no verdict' \
    replay --case 'C.K0:1*/K1:1*' --steps 10000000 --liveness none --quiet
# calibrate: the rows measured before it.
interrupt "calibrate" handler+sleep:1 'interrupted by SIGINT: the rows above' calibrate --seconds 2 --slot-threads 1
# selftests: where it stopped, and the policies it never reached.
interrupt "selftests" handler+sleep:1 'selftests interrupted by SIGINT: policy stock ran [0-9]* of 10000 runs; not run: wait-for-new, rwsem-gate' \
    selftests --runs 10000
exit $fail
