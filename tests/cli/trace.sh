#!/usr/bin/env bash
# futexsim run --trace: the command prints the same line and the same JSON
# (apart from wall_seconds) with and without it, and writes a complete
# trace-event file (tests/sim/trace_test.cpp checks its contents).
set -u
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
args=(run --threads 16 --cpus 0-15 --seconds 0.003)
strip() { sed 's/"wall_seconds":[^,}]*//'; }
a=$("$bin" "${args[@]}") || fail=1
b=$("$bin" "${args[@]}" --trace "$dir/t1.json") || fail=1
[ "$a" = "$b" ] || { echo "FAIL: human line differs with --trace: '$a' vs '$b'"; fail=1; }
a=$("$bin" "${args[@]}" --json | strip) || fail=1
b=$("$bin" "${args[@]}" --json --trace "$dir/t2.json" --trace-window 1:2 | strip) || fail=1
[ "$a" = "$b" ] || { echo "FAIL: JSON differs with --trace: '$a' vs '$b'"; fail=1; }
for f in "$dir/t1.json" "$dir/t2.json"; do
    if [ "$(head -n1 "$f")" != '{"traceEvents":[' ] || [ "$(tail -n1 "$f")" != '],"displayTimeUnit":"ns"}' ]; then
        echo "FAIL: $f is not a complete trace-event file"
        fail=1
    fi
done
grep -q '"name":"FUTEX_WAKE"' "$dir/t1.json" || { echo "FAIL: no FUTEX_WAKE slice"; fail=1; }
[ "$fail" -eq 0 ] && echo "ok: same output with and without --trace; complete trace files"
exit $fail
