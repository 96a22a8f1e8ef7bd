# Sourced by the bad-input tests (errors.sh, hostile.sh): `check EXPECT
# ARGS...` runs "$bin" ARGS and wants exit status 2 and one line on stderr
# holding EXPECT; a failure sets fail=1. A command that hangs is cut at 60 s
# (and then fails: its status is 124).
# Under ASan the first fiber switch prints a warning on stderr: not ours.
asan_noise='WARNING: ASan doesn.t fully support makecontext/swapcontext'
check() {
    local expect="$1"; shift
    local err rc lines
    err=$(timeout 60 "$bin" "$@" 2>&1 >/dev/null); rc=$?
    err=$(printf '%s\n' "$err" | grep -v "$asan_noise")
    lines=$(printf '%s\n' "$err" | wc -l)
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [[ "$err" != *"$expect"* ]]; then
        echo "FAIL: futexsim $* -> rc=$rc, $lines line(s): $err (wanted '$expect')"
        fail=1
    else
        echo "ok: futexsim $* -> $err"
    fi
}
