#!/usr/bin/env bash
# experiments/kernel/fetch and experiments/kernel/layout without a download:
# their argument errors (one line, exit 2), fetch doing nothing on a
# complete cache, layout naming the fetch command for a missing input, and
# layout's reading of gdb's `ptype /o` on a trimmed mm_struct of 7.2.13.
set -euo pipefail
src=$1
fetch=$src/experiments/kernel/fetch
layout=$src/experiments/kernel/layout
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check NAME WANT_STATUS WANT_REGEX -- command...
    local name=$1 want=$2 re=$3; shift 4
    local st=0
    "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
    if [ "$st" -ne "$want" ] || ! grep -Eq -- "$re" "$tmp/out" "$tmp/err"; then
        echo "FAIL: $name: exit $st (want $want), output:"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1))
    else
        echo "ok: $name"
    fi
}
check "fetch --help" 0 'Linux 7.2.13 packages' -- "$fetch" --help
check "fetch: unknown role" 2 "unknown role 'bogus'" -- "$fetch" --only bogus --cache "$tmp/c"
check "fetch: --cache without a value" 2 '--cache needs a directory' -- "$fetch" --cache
check "fetch: unknown argument" 2 "unknown argument '--nope'" -- "$fetch" --nope
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "FAIL: the error is not one line"; fails=$((fails + 1)); }
mkdir -p "$tmp/c"
for r in source dbg-amd64 dbg-arm64 image-amd64 image-arm64; do touch "$tmp/c/.complete-$r"; done
check "fetch: a complete cache is left alone" 0 '^fetch: complete in' -- "$fetch" --cache "$tmp/c"
check "layout --help" 0 'DWARF' -- "$layout" --help
check "layout: a missing vmlinux names the fetch command" 2 'run experiments/kernel/fetch --only dbg-amd64' -- \
    "$layout" --cache "$tmp/empty" --out "$tmp/t.tsv"

# The parser on real gdb output (tests/kernel/ptype_mm_struct.txt, the amd64
# build's lines 6-9 of mm_struct): absolute offsets of nested leaves.
python3 - "$layout" "$src/tests/kernel/ptype_mm_struct.txt" <<'PY' || fails=$((fails + 1))
import sys
from importlib.machinery import SourceFileLoader
layout = SourceFileLoader("layout", sys.argv[1]).load_module()
f = layout.parse_ptype(open(sys.argv[2]).read())
want = {"mm_struct.mm_lock_seq": (464, 4), "mm_struct.futex.phash.lock.owner": (472, 8),
        "mm_struct.futex.phash.hash": (496, 8), "mm_struct.futex.phash.atomic": (536, 8),
        "mm_struct.futex.phash.rcu.func": (528, 8), "mm_struct.futex.unlock.cs_ranges": (552, 32),
        "mm_struct.hiwater_rss": (592, 8)}
bad = {k: (f.get(k), v) for k, v in want.items() if f.get(k) != v}
rows = layout.rows_for("amd64", f)
lines = {r[2]: (r[5], r[6]) for r in rows}
if lines.get("futex.phash.atomic") != (8, 8) or lines.get("futex.phash.hash") != (7, 7):
    bad["lines"] = lines
if "mmlist.next" in lines:  # 440: line 6, which mm->futex does not touch
    bad["mmlist.next kept"] = lines["mmlist.next"]
if bad:
    print("FAIL: parse_ptype:", bad)
    sys.exit(1)
print("ok: parse_ptype gives the nested offsets and lines")
PY
exit $((fails > 0))
