#!/usr/bin/env bash
# Issue 33, item 23: the human lines read right.
#   - a run shorter than 0.1 s prints its length to two significant digits
#     (not "0.00s"); 1 s prints "1.00s" as before;
#   - a count of one takes the singular: "1 run", "1 complete execution";
#   - sensitivity's words say how it orders the rows (undecided ends last);
#   - a machine name with a control character (a newline broke the
#     selftests header) is refused: one line naming the file, exit 2.
set -u
bin="$1"
. "$(cd "$(dirname "$0")" && pwd)/one_line_error.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
has() {  # WHAT TEXT NEEDLE
    [[ "$2" == *"$3"* ]] && echo "ok: $1: ...$3..." || bad "$1: no '$3' in: $2"
}

has "a 1 ms run" "$("$bin" run --threads 4 --cpus 0-3 --seconds 0.001)" " 0.0010s "
has "a 15 ms run" "$("$bin" run --threads 4 --cpus 0-3 --seconds 0.015)" " 0.015s "
has "a 0.5 s run" "$("$bin" run --threads 4 --cpus 0-3 --seconds 0.5)" " 0.50s "

"$bin" sweep --threads 2 --runs 1 --seconds 0.001 --cpus 0-3 --out "$dir/one.jsonl" 2>"$dir/one.err" ||
    bad "a sweep of one run failed: $(cat "$dir/one.err")"
has "a sweep of one run" "$(head -n 1 "$dir/one.err")" "1 cell x 1 run = 1 run"
has "the report of one run" "$("$bin" report "$dir/one.jsonl")" "1 of 1 run"$'\n'

has "a search that fails in its first execution" \
    "$("$bin" replay --policy wait-for-new --case 'C.P64/R0:1:1.R0:1:1' --strategy dfs --liveness parked-drains \
        --no-sleeper-check --preemptions 1 --gp-ends 2 --no-shrink)" "found after 1 complete execution ("

sens=$("$bin" sensitivity --params hz,timing_jitter --threads 2,4 --runs 1 --seconds 0.001 --presized-seconds 0.001 \
    --cpus 0-3 --jobs 2 --out-dir "$dir/sens" 2>/dev/null) || bad "sensitivity failed"
has "sensitivity with one run per point" "$sens" "1 run of 0.001 virtual s per point"
has "sensitivity's order" "$sens" "undecided at either end (no count cleared 1/2"
# One run per point clears no interval: every end is undecided, so the rows
# keep the order they were asked in.
[ "$(grep -oE '^\| (hz|timing_jitter) ' <<<"$sens" | tr -d '| ' | tr '\n' ,)" = "hz,timing_jitter," ] &&
    echo "ok: undecided rows keep their order" || bad "undecided rows reordered: $sens"

printf '{"name": "two\\nlines", "topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 4, "threads_per_core": 1}}\n' \
    >"$dir/nl.json"
check "--machine-file $dir/nl.json: 'name' holds the control character 0x0a" selftests --machine-file "$dir/nl.json" --runs 1
check "--machine-file $dir/nl.json: 'name' holds the control character 0x0a" run --machine-file "$dir/nl.json"
check "--machine-file $dir/nl.json: 'name' holds the control character 0x0a" sensitivity --machine-file "$dir/nl.json" --out-dir "$dir/s2"
exit $fail
