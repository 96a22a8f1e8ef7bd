#!/usr/bin/env bash
# Every replay command docs/testing.md shows (a line that starts with
# `futexsim replay` or `build/tests/futexsim-mutants replay`, indented by
# four spaces or in a ``` block) does what the page says it does: the first
# line after it (before the next command) that starts with `ok:` or
# `VIOLATION:`, indented, is its verdict line (`...` stands for any text),
# and the status is 0 for ok, 1 for a violation. Issue 33, item 20: the page
# showed "ok" for a command that prints a violation. The commands are read
# from the page, so the page and the test cannot drift.
set -u
bin="$1"
mutants="$2"
page="$3"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The page as "CMD<tab>command" and "WANT<tab>verdict" records, in order.
records=$(python3 - "$page" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"^(?:    )?((?:futexsim|build/tests/futexsim-mutants) replay .*)$", line.rstrip("\n"))
    if m:
        print("CMD\t" + m.group(1))
        continue
    m = re.match(r"^    ((?:ok|VIOLATION): .*)$", line.rstrip("\n"))
    if m:
        print("WANT\t" + m.group(1))
PY
)

run_one() {  # CMD WANT
    local cmd="$1" want="$2" exe out rc got pattern want_rc
    case "$cmd" in
        futexsim\ *) exe="$bin"; cmd="${cmd#futexsim }" ;;
        build/tests/futexsim-mutants\ *) exe="$mutants"; cmd="${cmd#build/tests/futexsim-mutants }" ;;
    esac
    if [ -z "$want" ]; then
        bad "no ok: or VIOLATION: line after: $1"
        return
    fi
    [[ "$want" == ok:* ]] && want_rc=0 || want_rc=1
    out=$(eval "\"$exe\" $cmd --quiet" 2>&1); rc=$?
    got=$(grep -m1 -E '^(ok|VIOLATION): ' <<<"$out")
    # The verdict as a glob: the page's text, with ... for any text.
    pattern=$(sed -e 's/[][*?\\]/\\&/g' -e 's/\.\.\./*/g' <<<"$want")
    # shellcheck disable=SC2053
    if [ "$rc" -ne "$want_rc" ] || [[ "$got" != $pattern ]]; then
        bad "$1 -> rc=$rc: '$got' (the page says rc=$want_rc, '$want')"
    else
        echo "ok: $1 -> $got"
    fi
}

count=0
cmd="" want=""
while IFS=$'\t' read -r kind text; do
    if [ "$kind" = CMD ]; then
        [ -n "$cmd" ] && { run_one "$cmd" "$want"; count=$((count + 1)); }
        cmd="$text" want=""
    elif [ -n "$cmd" ] && [ -z "$want" ]; then
        want="$text"
    fi
done <<<"$records"
[ -n "$cmd" ] && { run_one "$cmd" "$want"; count=$((count + 1)); }
[ "$count" -ge 5 ] || bad "found $count replay commands in $page, expected at least 5"
exit $fail
