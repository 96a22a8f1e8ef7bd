#!/usr/bin/env bash
# Issue 49: every Python tool of experiments/ (run_all, kernel/count_sites,
# lock_paths, layout, vm/run, vm/beside; and kernel/fetch, in bash) answers
# bad input with one line on stderr and exit status 2, never a traceback;
# run_all leaves alone a study it was not asked for (`futexsim report`
# alone reads it) and takes a results file cut short by a kill as the sweep
# does; a driver stopped by SIGTERM passes it on, waits for its children and
# exits with 143, and one killed outright (kill -9) leaves no child
# running. No download, no QEMU (tests/vm's fake stands in), no
# gdb-multiarch (its absence is one of the cases).
set -u
bin="$1"
root="$2"
py=/usr/bin/python3
x=$root/experiments
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
shown() { sed -e "s#$root/##g" -e "s#$dir/##g" <<<"$*"; }

# one_line EXPECT COMMAND...: exit status 2, one line on stderr holding
# EXPECT, and no traceback on either stream.
one_line() {
    local expect="$1"; shift
    local rc lines
    timeout 60 "$@" >"$dir/out" 2>"$dir/err"; rc=$?
    lines=$(wc -l <"$dir/err")
    if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$expect" "$dir/err" ||
        grep -q Traceback "$dir/out" "$dir/err"; then
        bad "$(shown "$*") -> rc=$rc, $lines line(s): $(head -c 400 "$dir/err") (wanted '$expect')"
    else
        echo "ok: $(shown "$*") -> $(shown "$(cat "$dir/err")")"
    fi
}
# A process that has not ended (a zombie has: its parent is gone).
alive() { ps -o stat= -p "$1" 2>/dev/null | grep -qv '^Z'; }
descendants() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}
# A spec of one tiny sweep; its name, then more of its keys as JSON.
spec() { printf '{"name": "%s", "title": "%s", "describe": "d", "x": "threads", "series": "arm", "lengths": "l", %s}\n' "$1" "$1" "$2"; }
tiny='"sweeps": {"auto": ["--threads", "4,8", "--runs", "2", "--seconds", "0.01"]}'

# --- run_all: bad specs and arguments, refused before anything runs -----
mkdir -p "$dir/specs"/{notjson,noname,array,latin1,dir/a.json,args,noref}
echo '{"name": ' >"$dir/specs/notjson/a.json"
echo '{"title": "t"}' >"$dir/specs/noname/a.json"
echo '[]' >"$dir/specs/array/a.json"
printf '{"name": "caf\xe9"}\n' >"$dir/specs/latin1/a.json"
spec args '"sweeps": {"auto": ["--threads", "x"]}' >"$dir/specs/args/a.json"
# Bad input goes with tiny sweeps and a folder of the test's: should one be
# taken, it costs a second and leaves the repository alone.
mkdir -p "$dir/specs/tiny"
spec tiny "$tiny" >"$dir/specs/tiny/tiny.json"
$py - "$x/specs/repro1.json" "$dir/specs/tiny/tiny.json" "$dir/specs/noref/a.json" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec["reference"] = "reference/no-such-table.csv"
spec["sweeps"] = {part: json.load(open(sys.argv[2]))["sweeps"]["auto"] for part in spec["sweeps"]}
json.dump(spec, open(sys.argv[3], "w"))
PY
run_all=($py "$x/run_all" --futexsim "$bin")
small=(--specs "$dir/specs/tiny" --out-dir "$dir/o")
one_line "not JSON" "${run_all[@]}" --specs "$dir/specs/notjson" --out-dir "$dir/o"
one_line 'no "name"' "${run_all[@]}" --specs "$dir/specs/noname" --out-dir "$dir/o"
one_line "an array, not a JSON object" "${run_all[@]}" --specs "$dir/specs/array" --out-dir "$dir/o"
one_line "not UTF-8" "${run_all[@]}" --specs "$dir/specs/latin1" --out-dir "$dir/o"
one_line "is a directory" "${run_all[@]}" --specs "$dir/specs/dir" --out-dir "$dir/o"
one_line "--threads 'x'" "${run_all[@]}" --specs "$dir/specs/args" --out-dir "$dir/o"
one_line "reference/no-such-table.csv: No such file" "${run_all[@]}" --specs "$dir/specs/noref" --out-dir "$dir/o"
one_line "--jobs: must be a whole number >= 1" "${run_all[@]}" "${small[@]}" --jobs -1
one_line "--jobs: must be a whole number >= 1" "${run_all[@]}" "${small[@]}" --jobs 0
one_line "--only needs a spec's name" "${run_all[@]}" "${small[@]}" --only ''
one_line "--futexsim /tmp: not an executable file" $py "$x/run_all" "${small[@]}" --futexsim /tmp
one_line "--out-dir /dev/null: not a directory" "${run_all[@]}" --specs "$dir/specs/tiny" --quick --out-dir /dev/null
[ -e "$dir/o" ] && bad "run_all made its --out-dir for input it refused"

# --- the kernel tools ----------------------------------------------------
printf '\xff\xfe{}\n' >"$dir/latin1.json"
echo '[]' >"$dir/array.json"
one_line "not UTF-8" $py "$x/kernel/lock_paths" --paths "$dir/latin1.json"
one_line "not a paths spec" $py "$x/kernel/lock_paths" --paths "$dir/array.json"
one_line "cannot write /dev/full: No space left on device" $py "$x/kernel/lock_paths" -o /dev/full
one_line "cannot write /nonexist/x: No such file or directory" $py "$x/kernel/lock_paths" -o /nonexist/x
one_line "not UTF-8" $py "$x/kernel/count_sites" --spec "$dir/latin1.json" --elf /bin/true
one_line "not UTF-8" $py "$x/kernel/count_sites" --markdown "$dir/latin1.json"
one_line "/dev/zero: not a regular file" $py "$x/kernel/count_sites" --elf /dev/zero
one_line "is a directory, not an ELF file" $py "$x/kernel/count_sites" --elf "$dir"
one_line "$dir/latin1.json: not an ELF file" $py "$x/kernel/count_sites" --elf "$dir/latin1.json"
# layout with every input there but gdb-multiarch not on PATH.
for a in amd64 arm64; do
    mkdir -p "$dir/cache/root/usr/lib/debug/lib/modules/7.2.13+deb14-cloud-$a" "$dir/cache/root/usr/lib/modules/7.2.13+deb14-cloud-$a"
    touch "$dir/cache/root/usr/lib/debug/lib/modules/7.2.13+deb14-cloud-$a/vmlinux" \
        "$dir/cache/root/usr/lib/modules/7.2.13+deb14-cloud-$a/vmlinuz"
done
mkdir "$dir/nobin"
one_line "gdb-multiarch not found: apt-get install gdb-multiarch" \
    env PATH="$dir/nobin" $py "$x/kernel/layout" --cache "$dir/cache" --out "$dir/layout.tsv"
one_line "--only: an empty role in 'source,,'" "$x/kernel/fetch" --only 'source,,' --cache "$dir/fetch"

# --- vm/run and beside ---------------------------------------------------
echo "not an ELF: taken as static" >"$dir/busybox"
vm=($py "$x/vm/run" --busybox "$dir/busybox" --futexsim "$dir/no-futexsim" --cache "$dir/cache" --run true)
one_line "--write-initramfs /nonexist/x: no such folder" "${vm[@]}" --write-initramfs /nonexist/x
one_line "--write-initramfs /dev/full: cannot write: No space left on device" "${vm[@]}" --write-initramfs /dev/full
one_line "--write-initramfs /tmp: is a directory" "${vm[@]}" --write-initramfs /tmp
one_line "argument --timeout: takes seconds, more than 0 and at most 86400, not '0'" $py "$x/vm/beside" --timeout 0
one_line "argument --timeout: takes seconds, more than 0 and at most 86400, not 'nan'" $py "$x/vm/beside" --timeout nan

# --- run_all and results files cut short ---------------------------------
# A study not asked for (--only tiny) is not read but by `futexsim report`,
# which refuses its cut-short file: left out in a line, the file untouched;
# the study asked for gets its cut-short line dropped and run again, as
# `futexsim sweep` resumes.
mkdir -p "$dir/cut/specs"
cp "$dir/specs/tiny/tiny.json" "$dir/cut/specs/"
spec study "\"long\": true, $tiny" >"$dir/cut/specs/study.json"
cut=("${run_all[@]}" --specs "$dir/cut/specs" --out-dir "$dir/cut/out")
"${cut[@]}" --long 2>"$dir/cut/err" || bad "run_all on two tiny specs failed: $(tail -n 3 "$dir/cut/err")"
truncate -s -5 "$dir/cut/out/study-auto.jsonl"
before=$(md5sum <"$dir/cut/out/study-auto.jsonl")
"${cut[@]}" --only tiny 2>"$dir/cut/err"; rc=$?
if [ "$rc" -ne 0 ] || grep -q Traceback "$dir/cut/err"; then
    bad "run_all --only tiny beside a cut-short study: exit $rc: $(tail -n 3 "$dir/cut/err")"
elif ! grep -q "^run_all: study left out: .*cut short" "$dir/cut/err"; then
    bad "run_all --only tiny does not say why the cut-short study is left out: $(cat "$dir/cut/err")"
elif [ "$(md5sum <"$dir/cut/out/study-auto.jsonl")" != "$before" ]; then
    bad "run_all --only tiny changed the results of a study it was not asked for"
else
    echo "ok: run_all --only tiny: $(shown "$(grep "study left out" "$dir/cut/err")")"
fi
truncate -s -5 "$dir/cut/out/tiny-auto.jsonl"
"${cut[@]}" --only tiny 2>"$dir/cut/err"; rc=$?
lines=$(wc -l <"$dir/cut/out/tiny-auto.jsonl")
if [ "$rc" -ne 0 ] || grep -q Traceback "$dir/cut/err" || [ "$lines" -ne 4 ] ||
    [ "$(tail -c 1 "$dir/cut/out/tiny-auto.jsonl" | od -An -c | tr -d ' ')" != '\n' ]; then
    bad "run_all --only tiny on its cut-short file: exit $rc, $lines whole runs of 4: $(tail -n 3 "$dir/cut/err")"
else
    echo "ok: run_all resumes the study asked for past its cut-short last line (exit 0, 4 of 4 runs)"
fi

# --- signals: a driver stopped or killed leaves no child ------------------
# Runs of seconds, so that the signal lands while the sweep runs them.
mkdir -p "$dir/sig/specs"
spec slow '"sweeps": {"auto": ["--threads", "96,128", "--runs", "4", "--seconds", "3", "--exact"]}' \
    >"$dir/sig/specs/slow.json"
# wait_for_runs PID: until PID has the sweep and two runs under it.
wait_for_runs() {
    local i
    for i in $(seq 1 300); do
        [ "$(descendants "$1" | wc -l)" -ge 3 ] && return 0
        sleep 0.1
    done
    return 1
}
for sig in TERM KILL; do
    out=$dir/sig/$sig
    "${run_all[@]}" --specs "$dir/sig/specs" --out-dir "$out" --jobs 2 2>"$dir/sig/$sig.err" &
    pid=$!
    wait_for_runs "$pid" || bad "run_all never started its sweep's runs"
    kids=$(descendants "$pid")
    kill -"$sig" "$pid"
    { wait "$pid"; } 2>/dev/null; rc=$?  # no "Killed" notice from bash
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || bad "run_all on SIG$sig exits $rc, wanted $want: $(tail -n 2 "$dir/sig/$sig.err")"
    grep -q Traceback "$dir/sig/$sig.err" && bad "run_all on SIG$sig: a traceback: $(cat "$dir/sig/$sig.err")"
    sleep 1
    left=$(for k in $kids; do alive "$k" && echo "$k"; done; pgrep -f -- "$out")
    if [ -n "$left" ]; then
        bad "SIG$sig: run_all's children outlived it: $(ps -o pid=,args= -p "$(echo $left | tr ' ' ,)")"
        kill -9 $left 2>/dev/null
    else
        echo "ok: SIG$sig: run_all exits $rc and none of its $(echo $kids | wc -w) descendants outlives it"
    fi
done

# vm/run with tests/vm's fake QEMU (in its own session, out of a
# terminal's reach): SIGTERM ends it with 143, kill -9 leaves none.
mkdir -p "$dir/vm/bin"
printf '#!/bin/sh\nexec %s %s "$@"\n' "$py" "$root/tests/vm/fake_qemu.py" >"$dir/vm/bin/qemu-system-x86_64"
chmod +x "$dir/vm/bin/qemu-system-x86_64"
printf '@@futexvm BOOTED cpus=1 kernel=fake\n@@futexvm BEGIN 1\n' >"$dir/vm/console"
echo "fake kernel" >"$dir/vm/vmlinuz"
for sig in TERM KILL; do
    rm -f "$dir/vm/pid"
    PATH="$dir/vm/bin" TMPDIR="$dir/vm" FAKE_QEMU_DIR="$dir/vm" FAKE_QEMU_HANG=1 "${vm[@]}" \
        --kernel-image "$dir/vm/vmlinuz" --accel tcg >/dev/null 2>"$dir/vm/$sig.err" &
    pid=$!
    for i in $(seq 1 300); do [ -s "$dir/vm/pid" ] && break; sleep 0.1; done
    qemu=$(cat "$dir/vm/pid" 2>/dev/null) || { bad "vm/run never started the fake QEMU"; kill -9 "$pid"; continue; }
    kill -"$sig" "$pid"
    { wait "$pid"; } 2>/dev/null; rc=$?  # no "Killed" notice from bash
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" -eq "$want" ] || bad "vm/run on SIG$sig exits $rc, wanted $want: $(tail -n 2 "$dir/vm/$sig.err")"
    grep -q Traceback "$dir/vm/$sig.err" && bad "vm/run on SIG$sig: a traceback: $(cat "$dir/vm/$sig.err")"
    sleep 1
    if alive "$qemu"; then
        bad "SIG$sig: vm/run's QEMU outlived it"
        kill -9 "$qemu"
    else
        echo "ok: SIG$sig: vm/run exits $rc and its QEMU does not outlive it"
    fi
done
exit $fail
