#!/usr/bin/env bash
# futexsim probe on this machine: it writes a machine file that the parser
# and `futexsim run --machine-file` take, every value with its source; the
# system-call split it prints has its rows. Nothing about speed is checked.
set -u
bin="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() { if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi; }

out=$("$bin" probe --out "$dir/m.json" --batches 5 --round-trips 50 --syscall-rounds 11 2>&1); rc=$?
echo "$out"
check '[ $rc -eq 0 ]' "probe exits 0"
check '[ -s "$dir/m.json" ]' "probe wrote the file"
check '[[ "$out" == *"futex(invalid op): entry + exit"* && "$out" == *"split of one FUTEX_WAKE_PRIVATE"* ]]' \
      "probe prints the system-call split"
# Issue 33, item 23: the split's entry+exit and the one probe derives from
# it are both to 0.1 ns, and the derived one says what it is.
split=$(grep -oE 'split of one FUTEX_WAKE_PRIVATE: entry\+exit [0-9]+\.[0-9] ns' <<<"$out" | grep -oE '[0-9]+\.[0-9]')
check '[ -n "$split" ] && [[ "$out" == *"(the split'"'"'s $split ns less the model'"'"'s "* ]]' \
      "the split's entry+exit ($split ns) and the derived one agree in rounding and say how they differ"
check '[[ "$out" == *"same_llc"* || "$out" == *"smt_sibling"* || $(nproc) -eq 1 ]]' "probe prints the pair classes"
python3 - "$dir/m.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
src = j["sources"]
missing = [k for k in j if k not in ("name", "description", "sources", "transfer_ns") and k not in src]
missing += ["transfer_ns." + k for k in j["transfer_ns"] if "transfer_ns." + k not in src]
assert not missing, f"no source for {missing}"
assert src["syscall_entry_ns"].startswith("measured: futexsim probe"), src["syscall_entry_ns"]
print("ok: every field names its source; the syscall cost is measured")
PY
# stdout only: a sanitizer build writes its own warnings to stderr.
run=$("$bin" run --machine-file "$dir/m.json" --seconds 0.01 2>"$dir/run.err"); rc=$?
echo "$run"
check '[ $rc -eq 0 ] && [[ "$run" == threads=* ]]' "run --machine-file takes the probed file"
# Bad input: one line, exit 2, and nothing measured.
err=$("$bin" probe --out /nonexistent/dir/m.json 2>&1 >/dev/null); rc=$?
check '[ $rc -eq 2 ] && [[ "$err" == *"--out '"'"'/nonexistent/dir/m.json'"'"': cannot write"* ]]' "unwritable --out: $err"
err=$("$bin" probe --out "$dir/x.json" --pairs 0 2>&1 >/dev/null); rc=$?
check '[ $rc -eq 2 ] && [[ "$err" == *"--pairs"* ]] && [ ! -e "$dir/x.json" ]' "--pairs 0: $err"
exit $fail
