#!/usr/bin/env bash
# The census of docs/testing.md ("Exhaustive exploration"): for each policy
# and property, `futexsim replay --strategy dfs` on cases of growing size,
# one after the other, with the CPU time each took. A search gets one
# minute of CPU (ulimit -t 60): one killed there is reported "over 60 s".
# Usage: census.sh [FUTEXSIM [PROPERTY...]] > census.txt (only those
# properties' rows when some are named, e.g. parked-drains)
# CENSUS_MEMORY=tso or arm64 runs every cell under that memory model
# (docs/testing.md, "Weak memory"); its rows are census-tso.txt and
# census-arm64.txt, which also have the lost-post family.
set -u
bin=${1:-build/futexsim}
only=("${@:2}")
memory=${CENSUS_MEMORY:-sc}
case $memory in sc | tso | arm64) ;; *) echo "census.sh: CENSUS_MEMORY='$memory': expected sc, tso or arm64" >&2; exit 2 ;; esac
bounds="--steps 400 --preemptions 2 --gp-ends 2 --no-shrink --memory $memory"
cell() {  # policy property case flags...
    local policy=$1 prop=$2 case=$3; shift 3
    local out t
    out=$( { /usr/bin/time -f 'cpu=%U+%S' bash -c 'ulimit -t 60; exec nice "$@"' _ "$bin" replay --policy "$policy" --case "$case" --strategy dfs $bounds "$@"; } 2>&1 )
    t=$(printf '%s\n' "$out" | grep -o 'cpu=[0-9.+]*' | tail -1)
    printf '%s | %s | %s | %s | %s | %s\n' "$policy" "$prop" "$case" "$*" "$t" \
        "$(printf '%s\n' "$out" | grep -E '^(ok|VIOLATION|incomplete)' | head -1 | cut -c1-160 | grep . || echo 'over 60 s of CPU')"
}
# Cases of one family in growing size: stop at the first over the minute.
ladder() {  # policy property "flags" case...
    local policy=$1 prop=$2 flags=$3 line; shift 3
    [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $prop "* ]] || return 0
    for c in "$@"; do
        line=$(cell "$policy" "$prop" "$c" $flags)
        echo "$line"
        [[ "$line" == *"over 60 s"* ]] && break
    done
}
for policy in stock wait-for-new rwsem-gate; do
    ladder $policy safety "--no-sleeper-check --cpus 3" C.P2/K0:1 C.P2/W0.K0:1 C.P2.K0:1/W0.K0:1 C.C.P2/K0:1/W0
    ladder $policy lost-waiter "--no-sleeper-check --cpus 3" C.K0:1/W0 C.W0.K0:1/K0:1.W0 C.C.K0:1/W0/W0
    # A post (store, then wake) and its waiter: barriers (A) and (B).
    [[ $memory == sc ]] || ladder $policy lost-post "--cpus 3" C.V0:1/W0 C.P2.V0:1/W0 C.C.V0:1/W0/V1:1
    ladder $policy pivot-completes "--kernel v7.2.1 --cpus 3" C.P2/K0:1 C.P2/M0.K0:1 C.P2.K0:1/T0:2.K0:1
    ladder $policy stuck-sleeper "--cpus 3" C.P2/P16 C.P2.G/P16
    ladder $policy stuck-sleeper-fixed "--kernel v7.2.1 --cpus 3" C.P2/P16 C.P2.G/P16
    ladder $policy parked-drains "--liveness parked-drains --no-sleeper-check --cpus 3" C.P64/M0.M0 C.P64.K0:1/W0 \
        C.P64/O0:1.M0 C.C.P64/M0/M0
done
