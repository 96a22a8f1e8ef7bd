#!/usr/bin/env bash
# Every replay command docs/findings.md shows (indented lines that start
# with `futexsim replay`) does what the page says it does:
#   --kernel v6.17                        the lost wake-up: "blocked for good", exit 1
#   --kernel v7.2                         might_sleep(): "!TASK_RUNNING", exit 1
#   --kernel v7.2 --nonfatal-warnings     the warning reported, no violation, exit 0
#   --kernel v7.2.1                       no violation, exit 0
# except two policies, whatever the kernel:
#   --policy rwsem-gate-v1                a hang (requeue-PI): a violation, exit 1
#   --policy wait-for-new-wake            the liveness bound missed, exit 1
# The commands are read from the page, so the page and the test cannot drift.
set -u
bin="$1"
page="$2"
fail=0
declare -A seen=()
while IFS= read -r line; do
    cmd="${line#    futexsim }"
    kernel=$(grep -oE -- '--kernel [^ ]+' <<<"$cmd" | cut -d' ' -f2)
    policy=$(grep -oE -- '--policy [^ ]+' <<<"$cmd" | cut -d' ' -f2)
    # The PI findings: rwsem-gate as booted hangs (a deadlock or a lost
    # hand-off), and wait-for-new-wake misses the liveness bound; every
    # other policy's command on the page passes.
    case "$policy" in
        rwsem-gate-v1) want_rc=1 want_text="VIOLATION" ;;
        wait-for-new-wake) want_rc=1 want_text="VIOLATION: liveness" ;;
        *) policy="" ;;
    esac
    if [ -n "$policy" ]; then
        out=$(eval "\"$bin\" $cmd --quiet" 2>&1); rc=$?
        if [ "$rc" -ne "$want_rc" ] || [[ "$out" != *"$want_text"* ]]; then
            echo "FAIL ($policy): futexsim $cmd -> rc=$rc: $out (wanted rc=$want_rc and '$want_text')"
            fail=1
        else
            echo "ok ($policy): $(tail -n 1 <<<"$out")"
        fi
        continue
    fi
    case "$kernel" in
        v6.17) want_rc=1 want_text="blocked for good" ;;
        v7.2)
            if [[ "$cmd" == *--nonfatal-warnings* ]]; then
                want_rc=0 want_text="ok:"
            else
                want_rc=1 want_text="!TASK_RUNNING"
            fi ;;
        v7.2.1) want_rc=0 want_text="ok:" ;;
        *) echo "FAIL: no --kernel in: $line"; fail=1; continue ;;
    esac
    out=$(eval "\"$bin\" $cmd --quiet" 2>&1); rc=$?
    if [ "$rc" -ne "$want_rc" ] || [[ "$out" != *"$want_text"* ]]; then
        echo "FAIL ($kernel): futexsim $cmd -> rc=$rc: $out (wanted rc=$want_rc and '$want_text')"
        fail=1
    else
        echo "ok ($kernel): $(tail -n 1 <<<"$out")"
    fi
    seen[$kernel]=$(( ${seen[$kernel]:-0} + 1 ))
done < <(grep -E '^    futexsim replay ' "$page")
# The page must show each counterexample under both kernels at least.
if [ "${seen[v6.17]:-0}" -lt 3 ] || [ "${seen[v7.2.1]:-0}" -lt 3 ]; then
    echo "FAIL: expected at least 3 v6.17 and 3 v7.2.1 commands in $page (found ${seen[v6.17]:-0} and ${seen[v7.2.1]:-0})"
    fail=1
fi
exit $fail
