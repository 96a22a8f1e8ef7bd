#!/usr/bin/env bash
# futexsim sensitivity on a small grid: every parameter asked for gets a row
# with a threshold at both ends, the JSON names the same parameters, a rerun
# resumes from --out-dir, and bad input is one line with exit status 2.
set -euo pipefail
futexsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(--kernel v7.2 --params kernel_cpi,hz,modified_read --threads 8,64 --runs 1 --seconds 0.02 --presized-seconds 0.005 --jobs 2)

"$futexsim" sensitivity "${args[@]}" --out-dir "$dir/s" >"$dir/table.md"
grep -q '^| parameter |' "$dir/table.md"
for p in kernel_cpi hz modified_read; do
  grep -qE "^\| $p \| " "$dir/table.md" || { echo "no row for $p"; cat "$dir/table.md"; exit 1; }
done
test -f "$dir/s/base.json" && test -f "$dir/s/hz-low.json" && test -f "$dir/s/kernel_cpi-high.json"
# A parameter that takes words: its ends are the two rules.
grep -q '"modified_read": "share"' "$dir/s/modified_read-low.json"
grep -q '"modified_read": "migrate"' "$dir/s/modified_read-high.json"
# The variant machine files are machine files run takes.
"$futexsim" run --machine-file "$dir/s/hz-low.json" --threads 2 --seconds 0.001 >/dev/null

"$futexsim" sensitivity "${args[@]}" --out-dir "$dir/s" --format json >"$dir/out.json"
python3 - "$dir/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
names = sorted(p["name"] for p in j["parameters"])
assert names == ["hz", "kernel_cpi", "modified_read"], names
assert j["kernel"] == "v7.2", j["kernel"]
for p in j["parameters"]:
    assert p["low"] < p["high"], p
    for side in ("at_low", "at_high"):
        assert p[side]["presized_mops"] > 0, p
PY

status=0
"$futexsim" sensitivity --out-dir "$dir/x" --params nonsense 2>"$dir/err" || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$dir/err")" = 1 ] && grep -q "unknown parameter 'nonsense'" "$dir/err"
status=0
"$futexsim" sensitivity --out-dir "$dir/x" --threads 8,x 2>"$dir/err" || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$dir/err")" = 1 ]
# The sweeps ran the kernel asked for.
grep -q '"kernel":"v7.2"' "$dir/s/auto.jsonl" || grep -q '"kernel": "v7.2"' "$dir/s/auto.jsonl"
status=0
"$futexsim" sensitivity --out-dir "$dir/x" --kernel v9 2>"$dir/err" || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$dir/err")" = 1 ] && grep -q "unknown kernel 'v9'" "$dir/err"
echo "sensitivity: ok"
