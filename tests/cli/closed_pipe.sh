#!/usr/bin/env bash
# A reader that goes away (`futexsim ... | head -1`): every command prints
# nothing more and exits quietly with status 141 (128 + SIGPIPE, by exit,
# not killed by the signal), with nothing on stderr; and a --machine-file
# or probe --out that is a FIFO is refused by its type at once, not opened.
set -u
bin="$1"
fail=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# quiet FILE: FILE holds nothing but ASan's notice about fibers (the ASan
# build prints it from every process that switches contexts).
quiet() { ! grep -v "WARNING: ASan doesn.t fully support makecontext/swapcontext" "$1" | grep -q .; }
# closed NAME COMMAND...: COMMAND's stdout into `head -1`, which stops
# reading after one line; the command must end with 141 (or 0 when all it
# printed fitted in the pipe first) and nothing on stderr.
closed() {
    local name="$1"; shift
    timeout 120 "$bin" "$@" 2>"$dir/err" | head -1 >/dev/null
    local rc=${PIPESTATUS[0]}
    if { [ "$rc" -eq 141 ] || [ "$rc" -eq 0 ]; } && quiet "$dir/err"; then
        echo "ok: $name | head -1: exit $rc, nothing on stderr"
    else
        echo "FAIL: $name | head -1: exit $rc, stderr: $(head -c 500 "$dir/err")"; fail=1
    fi
}
closed "run --runs 2000" run --threads 1 --seconds 0.001 --runs 2000
closed "run --json --runs 500" run --threads 1 --seconds 0.001 --runs 500 --json --interval-ms 0.1
closed "run --help" run --help
closed "--help-all" --help-all
"$bin" sweep --threads 1 --runs 40 --seconds 0.001 --jobs 2 --out "$dir/s.jsonl" 2>/dev/null || { echo "FAIL: sweep"; fail=1; }
closed "report --format json" report --format json "$dir/s.jsonl" "$dir/s.jsonl"
closed "demo" demo --cpus 16 --threads 8
# Where the pipe is sure to be closed before the first write, the status is 141.
rc=$( { timeout 60 "$bin" run --threads 1 --seconds 0.001 --runs 3 2>"$dir/err"; echo $? >"$dir/rc"; } | true; cat "$dir/rc")
[ "$rc" -eq 141 ] && quiet "$dir/err" && echo "ok: a reader gone before the first line: exit 141" ||
    { echo "FAIL: a reader gone before the first line: exit $rc, $(cat "$dir/err")"; fail=1; }

mkfifo "$dir/fifo"
. "$(dirname "$0")/one_line_error.sh"
check "--machine-file: '$dir/fifo' is a FIFO, not a regular file" run --machine-file "$dir/fifo"
check "--machine-file: '$dir/fifo' is a FIFO" selftests --machine-file "$dir/fifo"
check "--out '$dir/fifo': is a FIFO, not a regular file" probe --out "$dir/fifo"
check "--machine-file: '/dev/null' is a device" run --machine-file /dev/null
check "directory" run --machine-file "$dir"
exit $fail
