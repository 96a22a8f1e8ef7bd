#!/bin/bash
# experiments/kernel/build-kernel's error paths, without a download or a
# compile: each is one line on stderr and exit status 2, before anything is
# copied. A patch that does not apply is tried against a tiny fake tree
# whose kernel/futex/core.c is not 7.2.13's. The shipped patches touch only
# the futex code, and put their calls at the model's hook sites.
set -euo pipefail
script=$1
patches=$(dirname "$script")/patches
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect_error WHAT PATTERN ARGS...: exit 2, exactly one line, matching.
expect_error() {
    local what=$1 pattern=$2 rc=0
    shift 2
    "$script" "$@" >"$dir/out" 2>"$dir/err" || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit status $rc, not 2 ($(cat "$dir/err"))"
    [ "$(wc -l <"$dir/err")" = 1 ] || fail "$what: not one line: $(cat "$dir/err")"
    grep -qE -e "$pattern" "$dir/err" || fail "$what: '$(cat "$dir/err")' does not match '$pattern'"
    echo "ok: $what: $(cat "$dir/err")"
}

# A fake tree: a Makefile (so it passes as a kernel source) and a futex
# core.c with none of the lines the patches' hunks look for.
mkdir -p "$dir/src/kernel/futex" "$dir/src/include/linux" "$dir/cache"
echo "# not a kernel" >"$dir/src/Makefile"
for f in kernel/futex/core.c kernel/futex/futex.h kernel/futex/waitwake.c \
         kernel/futex/requeue.c include/linux/futex_types.h; do
    printf '/* not 7.2.13 */\nint x;\n' >"$dir/src/$f"
done
common=(--cache "$dir/cache" --source "$dir/src")

"$script" --help | grep -q -- '--patch NAME' || fail "--help does not explain --patch"
expect_error "no --patch" "--patch NAME\|FILE\|none is required" "${common[@]}"
expect_error "an unknown patch name" "unknown patch 'no-such-policy' \(known: .*rwsem-gate.*wait-for-new" \
    --patch no-such-policy "${common[@]}"
expect_error "a missing patch file" "no patch file" --patch "$dir/missing.patch" "${common[@]}"
expect_error "--jobs 0" "--jobs must be a positive integer" --patch none --jobs 0 "${common[@]}"
expect_error "an unknown argument" "unknown argument '--frobnicate'" --frobnicate
expect_error "a value missing" "--cache needs a value" --patch none --cache
expect_error "no source tree" "no kernel source at .*: run experiments/kernel/fetch --only source" \
    --patch none --cache "$dir/cache" --source "$dir/nowhere"
for p in wait-for-new rwsem-gate; do
    expect_error "$p against a tree that is not 7.2.13" "patch .*$p\.patch does not apply to $dir/src" \
        --patch "$p" "${common[@]}"
done
[ ! -e "$dir/cache/build" ] || fail "a patch that does not apply still had the tree copied"
[ "$(cat "$dir/src/kernel/futex/core.c")" = "$(printf '/* not 7.2.13 */\nint x;')" ] || fail "the source tree was modified"

# Each shipped patch names only files under kernel/futex/ and include/linux/,
# and its header says where it comes from.
for p in "$patches"/*.patch; do
    bad=$(grep -E '^\+\+\+ ' "$p" | grep -vE '^\+\+\+ b/(kernel/futex/|include/linux/)' || true)
    [ -z "$bad" ] || fail "$p touches more than the futex code: $bad"
done
grep -q "RECONSTRUCTION, NOT THE REPORTER'S CODE" "$patches/rwsem-gate.patch" \
    || fail "rwsem-gate.patch does not say it is the project's reconstruction"

# The hunks sit where the model's hooks do (docs/policies.md, "The
# policies as kernel patches"): count the added calls per file.
added() { awk -v f="$2" '/^\+\+\+ /{cur=$2} /^\+[^+]/ && cur=="b/" f' "$1" | grep -c -e "$3" || true; }
wfn=$patches/wait-for-new.patch
[ "$(added "$wfn" kernel/futex/waitwake.c 'futex_wait_for_new_hash();')" = 3 ] \
    || fail "wait-for-new: not one wait at each of futex_wake(), futex_wake_op(), futex_wait()"
! grep -q '^+++ b/kernel/futex/requeue.c' "$wfn" || fail "wait-for-new gates requeue, which the draft (and the model) does not"
gate=$patches/rwsem-gate.patch
[ "$(added "$gate" kernel/futex/waitwake.c 'CLASS(futex_gate, gate)')" = 3 ] \
    || fail "rwsem-gate: not one read section in each of futex_wake(), futex_wake_op(), futex_wait_setup()"
[ "$(added "$gate" kernel/futex/requeue.c 'CLASS(futex_gate, gate)')" = 1 ] \
    || fail "rwsem-gate: futex_requeue() is not a reader"
for p in "$wfn" "$gate"; do
    [ "$(added "$p" kernel/futex/core.c 'futex_pivot_pending_wait(mm);')" -ge 1 ] \
        || fail "$p does not share futex_pivot_pending_wait() as the model does"
done
echo "all build-kernel error paths ok; the patches' hooks are where the model's are"
