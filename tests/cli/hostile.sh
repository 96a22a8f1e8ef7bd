#!/usr/bin/env bash
# Issue 33's hostile probe: result files edited by hand, special files as
# path arguments, names that are not UTF-8, duplicate grid values. Each is
# one line naming the flag or file and exit status 2, never a crash, an
# "internal error" or a silent wrong result.
set -u
bin="$1"
. "$(cd "$(dirname "$0")" && pwd)/one_line_error.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail=0

grid=(--threads 4,8 --runs 2 --seconds 0.002 --cpus 0-7 --seed 3)
# --jobs 1: the lines in run order, so that line 1 is run 0.
"$bin" sweep "${grid[@]}" --out good.jsonl --jobs 1 2>/dev/null || { echo "FAIL: the base sweep failed"; exit 1; }
[ "$(wc -l <good.jsonl)" -eq 4 ] || { echo "FAIL: the base sweep wrote $(wc -l <good.jsonl) lines"; exit 1; }

# mutate NAME PYTHON: good.jsonl with line 1 (l[0], a dict) changed by PYTHON.
mutate() {
    /usr/bin/python3 - "$2" >"$1" <<'PY'
import json, sys
l = [json.loads(x) for x in open("good.jsonl")]
exec(sys.argv[1])
for x in l:
    print(x if isinstance(x, str) else json.dumps(x, separators=(",", ":")))
PY
}

# Item 1: nesting deep enough to exhaust the stack is refused, in report and in resume.
mutate deep.jsonl 'l[0]["cell"]["arm"] = "X"; l[0] = json.dumps(l[0]).replace("\"X\"", "[" * 100000 + "]" * 100000)'
check "deep.jsonl line 1: nested more than" report deep.jsonl
cp deep.jsonl resume-deep.jsonl
check "--out resume-deep.jsonl: line 1: nested more than" sweep "${grid[@]}" --out resume-deep.jsonl
# Item 5: cells and runs of the wrong shape.
for cell in '{}' 'None' '[1,2]'; do
    mutate cell.jsonl "l[0][\"cell\"] = $cell"
    check "cell.jsonl line 1: 'cell'" report cell.jsonl
done
mutate cell.jsonl 'del l[0]["cell"]["threads"]'
check "'cell'.'threads' must be a whole number" report cell.jsonl
mutate gid.jsonl 'l[0]["grid_id"] = 12345'
check "'grid_id' must be a text" report gid.jsonl
cp gid.jsonl resume-gid.jsonl
check "--out resume-gid.jsonl: line 1: 'grid_id' must be a text" sweep "${grid[@]}" --out resume-gid.jsonl
mutate ri.jsonl 'l[0]["run_index"] = "1"'
cp ri.jsonl resume-ri.jsonl
check "'run_index' = \"1\" is not a whole number" sweep "${grid[@]}" --out resume-ri.jsonl
# Item 7: what does not fit the grid the file declares.
mutate ri.jsonl 'l[0]["run_index"] = 99'
check "'run_index' = 99 is outside the grid's 4 runs" report ri.jsonl
mutate ri.jsonl 'l[0]["run_index"] = -1'
check "'run_index' = -1 is not a whole number" report ri.jsonl
mutate gr.jsonl 'l[1]["grid_runs"] = 8'
check "gr.jsonl line 2: 'grid_runs' = 8, but grid" report gr.jsonl
mutate oc.jsonl 'l[0]["run"]["outcome"] = "maybe"'
check "'run'.'outcome' = \"maybe\" is not latched, transient or never" report oc.jsonl
cp oc.jsonl resume-oc.jsonl
check "--out resume-oc.jsonl: line 1: 'run'.'outcome'" sweep "${grid[@]}" --out resume-oc.jsonl
mutate mops.jsonl 'l[0]["run"]["mops"] = -5'
check "'run'.'mops' = -5 is not a number >= 0" report mops.jsonl
# Issue 49, item 5: a run that contradicts its cell or itself, each edit
# refused by report and by the resume, naming the line and the field.
i49=0
refused() {  # refused EXPECT PYTHON
    i49=$((i49 + 1))
    mutate "i49-$i49.jsonl" "$2"
    check "i49-$i49.jsonl line 1: $1" report "i49-$i49.jsonl"
    cp "i49-$i49.jsonl" "resume-i49-$i49.jsonl"
    check "--out resume-i49-$i49.jsonl: line 1: $1" sweep "${grid[@]}" --out "resume-i49-$i49.jsonl"
}
refused "'run'.'threads' = 5, but its cell's is 4" 'l[0]["run"]["threads"] = 5'
refused "'run'.'seed' = 999" 'l[0]["run"]["seed"] = 999'
refused "'run'.'machine' = \"epyc-9r45\", but its cell's is \"xeon-6975p-snc3\"" 'l[0]["run"]["machine"] = "epyc-9r45"'
refused "'run'.'policy' = \"wait-for-new\", but its cell's is" 'l[0]["run"]["policy"] = "wait-for-new"'
refused "'run'.'interrupted' = true: a sweep keeps only whole runs" 'l[0]["run"]["interrupted"] = True; l[0]["run"]["seconds"] = 0.001'
refused "'run'.'warnings' = 7 is not a list of texts" 'l[0]["run"]["warnings"] = 7'
refused "'run'.'ops' = -5 is not a whole number" 'l[0]["run"]["ops"] = -5'
refused "'run'.'seconds' = 0 is not a number > 0" 'l[0]["run"]["seconds"] = 0'
refused "'run'.'mops' = " 'l[0]["run"]["mops"] *= 50'
refused "'run'.'mops' = 1e+308 is not 'ops' / 'seconds'" 'l[0]["run"]["mops"] = 1e308'
mutate ci.jsonl 'l[0]["cell_index"] = 1'
check "ci.jsonl" report ci.jsonl
mutate arm.jsonl 'l[2]["cell"]["arm"] = "global"'
check "arm.jsonl" report arm.jsonl
mutate dup.jsonl 'd = json.loads(json.dumps(l[0])); d["run"]["ops"] += 1; d["run"]["mops"] = d["run"]["ops"] / d["run"]["seconds"] / 1e6; l.append(d)'
check "dup.jsonl line 5: run 0 is already in with other content" report dup.jsonl
# Item 9: resume of a line without its run, or edited to another cell.
mutate norun.jsonl 'del l[0]["run"]'
check "--out norun.jsonl: line 1: no 'run'" sweep "${grid[@]}" --out norun.jsonl
mutate other.jsonl 'l[0]["cell"]["threads"] = 8'
check "--out other.jsonl: line 1: 'run'.'threads' = 4, but its cell's is 8" sweep "${grid[@]}" --out other.jsonl
mutate other2.jsonl 'l[0]["cell"]["threads"] = 8; l[0]["run"]["threads"] = 8'
check "--out other2.jsonl: line 1 does not match run 0 of this grid" sweep "${grid[@]}" --out other2.jsonl
cmp -s norun.jsonl <(mutate /dev/stdout 'del l[0]["run"]') || { echo "FAIL: a refused resume changed its file"; fail=1; }
# The unchanged file still reports, and overlapping copies of it merge.
"$bin" report good.jsonl good.jsonl >/dev/null || { echo "FAIL: report of two copies of one file"; fail=1; }

# Item 5: resume of a read-only file whose last line is cut short.
if [ "$(id -u)" -ne 0 ]; then
    { cat good.jsonl; printf '{"sweep_version":1,"gr'; } >ro.jsonl
    chmod a-w ro.jsonl
    check "--out ro.jsonl: the last line is cut short and cannot be dropped" sweep "${grid[@]}" --out ro.jsonl
fi

# Items 3, 4: directories, devices and FIFOs as every path argument.
mkfifo fifo
check "report 'fifo': is a FIFO, not a regular file" report fifo
check "report '$dir': is a directory" report "$dir"
check "report '$dir': is a directory" report good.jsonl "$dir"
check "report '/dev/zero': is a device" report /dev/zero
check "report: an empty file name" report ''
check "--out '/tmp': is a directory" sweep "${grid[@]}" --out /tmp
check "--out '/dev/full': is a device" sweep "${grid[@]}" --out /dev/full
check "--out '/dev/zero': is a device" sweep "${grid[@]}" --out /dev/zero
check "--out 'fifo': is a FIFO" sweep "${grid[@]}" --out fifo
check "--machine-file: '/dev/zero' is a device" run --machine-file /dev/zero --seconds 0.001
check "--machine-file: 'fifo' is a FIFO" run --machine-file fifo --seconds 0.001
check "--machine-file: 'fifo' is a FIFO" selftests --machine-file fifo
check "--machine-file 'fifo': is a FIFO" sweep --machine-file fifo --out x.jsonl
check "--machine-file '$dir': is a directory" sensitivity --machine-file "$dir" --out-dir sens
check "--trace '/dev/full': is a device" run --seconds 0.001 --trace /dev/full
check "--trace 'fifo': is a FIFO" run --seconds 0.001 --trace fifo
check "--trace '$dir': is a directory" run --seconds 0.001 --trace "$dir"

# Item 2: names that are not UTF-8.
bad_name=$'m\xff\xfe.json'
check '--machine-file '"'"'m\xff\xfe.json'"'"': the name is not UTF-8' sweep --machine-file "$bad_name" --out x.jsonl
check '--out-dir '"'"'d\xff\xfe'"'"': the name is not UTF-8' sensitivity --out-dir $'d\xff\xfe'

# Item 6: seeds that would wrap.
check "--seed 18446744073709551615: the runs' seeds would pass" sweep --seed 18446744073709551615 --runs 2 --out x.jsonl
# Item 17: duplicate grid values.
check "--threads: '4' is given twice" sweep --threads 4,4 --out x.jsonl
check "--arms: 'auto' is given twice" sweep --arms auto,auto --out x.jsonl
check "--arms: 'presize:512' is given twice" sweep --arms presize:512,presize:0512 --out x.jsonl
check "--machine/--machine-file: 'xeon-6975p-snc3' is given twice" sweep --machine xeon-6975p-snc3,xeon-6975p-snc3 --out x.jsonl
check "--cpus: '0-3' is given twice" sweep --cpus '0-3;0-3' --out x.jsonl
check "--precheck: 'off' is given twice" sweep --precheck off,off --out x.jsonl
# Item 16: what a child would refuse, refused before any run.
check "--arms 'presize:2097152'" sweep --arms presize:2097152 --out x.jsonl
check "--ramp-ms 1000000000: a ramp is at most 3600000 ms" sweep --ramp-ms 1e9 --out x.jsonl
check "--interval-ms 0.1: 3600 s in bins of 0.1 ms is more than 1000000 bins" sweep --seconds 3600 --interval-ms 0.1 --out x.jsonl
# Item 19: messages that name their flag; no empty file for an empty shard.
echo '{"topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 1, "threads_per_core": 1}}' >one.json
check "--cpus '0-3' on machine file:one.json" sweep --machine-file one.json --cpus 0-3 --threads 1 --out x.jsonl
check "--shard 3/3: this shard owns none of the grid's 1 runs" sweep --seconds 0.001 --shard 3/3 --out empty.jsonl
[ -e empty.jsonl ] && { echo "FAIL: an empty shard created its --out"; fail=1; }
[ -e x.jsonl ] && { echo "FAIL: a refused sweep created its --out"; fail=1; }

# Items 11 and 17: a list that names a value twice, or nothing, is refused.
check "--policy stock given twice" selftests --policy stock --policy stock
check "--params: 'hz' given twice" sensitivity --params hz,hz --out-dir sens
check "--params '': an empty entry" sensitivity --params '' --out-dir sens
[ -e sens ] && { echo "FAIL: a refused sensitivity created its --out-dir"; fail=1; }

# Item 14: help that cannot be written is an error.
for args in "--help" "sweep --help" "report --help"; do
    # shellcheck disable=SC2086
    "$bin" $args >/dev/full 2>/dev/null; rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL: futexsim $args >/dev/full exits $rc, wanted 2"; fail=1; }
done
exit $fail
