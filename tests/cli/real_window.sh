#!/usr/bin/env bash
# A real-backend run whose window ends before the workload has created all
# its threads warns (its figures cover fewer threads than asked for); one
# whose threads all exist in time does not.
set -u
bin="$1"
fail=0
for backend in threads kernel; do
    # 64 creations spread over the whole 10 ms window: the last ones come
    # after it, as each creation's sleep overshoots.
    out=$(timeout 60 "$bin" run --backend "$backend" --threads 64 --seconds 0.01 --ramp-ms 10)
    [[ "$out" == *"WARNING(the window ended with "*" of the 64 threads created"* ]] &&
        echo "ok: $backend: $(grep -o 'WARNING(the window[^)]*' <<<"$out")" ||
        { echo "FAIL: $backend: no warning for threads created after the window: $out"; fail=1; }
    out=$(timeout 60 "$bin" run --backend "$backend" --threads 2 --seconds 0.2)
    [[ "$out" != *"threads created"* ]] && echo "ok: $backend: no warning when every thread exists in time" ||
        { echo "FAIL: $backend: a warning although every thread existed: $out"; fail=1; }
done
exit $fail
