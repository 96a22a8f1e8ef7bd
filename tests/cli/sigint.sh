#!/usr/bin/env bash
# SIGINT in the middle of a real-backend run: the process stops its threads,
# joins them, prints the partial result (interrupted: true) and exits with
# status 130, within a bound, for each real backend. Behaviour only: the
# bound is how long we wait before declaring it hung, not a measurement.
set -u
bin="$1"
fail=0
for backend in threads kernel; do
    out=$(mktemp)
    "$bin" run --backend "$backend" --threads 8 --seconds 30 --json >"$out" 2>&1 &
    pid=$!
    # Wait until the workers exist (Threads: in /proc), then interrupt.
    for _ in $(seq 1 100); do
        n=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ "${n:-0}" -ge 9 ] && break
        sleep 0.05
    done
    kill -INT "$pid"
    for _ in $(seq 1 200); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "FAIL: $backend: still running 10 s after SIGINT (threads: $(awk '/^Threads:/ {print $2}' /proc/$pid/status))"
        kill -KILL "$pid"
        fail=1
        continue
    fi
    wait "$pid"; rc=$?
    if [ "$rc" -ne 130 ] || ! grep -q '"interrupted":true' "$out"; then
        echo "FAIL: $backend: rc=$rc, output: $(cat "$out")"
        fail=1
    else
        echo "ok: $backend: exit 130 after SIGINT, threads joined: $(cut -c1-120 "$out")"
    fi
    rm -f "$out"
done
exit $fail
