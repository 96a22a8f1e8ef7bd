#!/usr/bin/env bash
# The barrier mutants of docs/testing.md ("Weak memory"): each ordering
# primitive of model/ weakened at its mutation point (model/mutation.h),
# searched for a violation under each memory model on cases that run the
# code around it. A search is `replay --strategy dfs` within the bounds below
# and one minute of CPU (ulimit -t 60); the first violation found is printed
# with the command that replays it. The unmutated model runs the same cells
# (mutation "none"): it must pass or run out of time, never fail.
# Usage: barrier_mutants.sh [FUTEXSIM-MUTANTS] > barrier-mutants.txt
set -u
bin=${1:-build/tests/futexsim-mutants}
bounds="--steps 400 --preemptions 1 --gp-ends 1 --no-shrink"
cell() {  # mutation memory policy case flags...
    local mutation=$1 memory=$2 policy=$3 case=$4 out t verdict replay
    shift 4
    local mflag=()
    [[ $mutation == none ]] || mflag=(--mutation "$mutation")
    out=$( { /usr/bin/time -f 'cpu=%U' bash -c 'ulimit -t 60; exec nice "$@"' _ "$bin" replay --policy "$policy" \
        --case "$case" --strategy dfs --memory "$memory" $bounds "${mflag[@]}" "$@"; } 2>&1)
    t=$(printf '%s\n' "$out" | grep -o 'cpu=[0-9.]*' | tail -1)
    verdict=$(printf '%s\n' "$out" | grep -E '^(ok|VIOLATION|incomplete)' | head -1 | cut -c1-150)
    replay=$(printf '%s\n' "$out" | grep -m1 '  replay:' | sed 's/^  replay: //')
    printf '%s | %s | %s | %s | %s | %s | %s\n' "$mutation" "$memory" "$policy" "$case $*" "$t" \
        "${verdict:-over 60 s of CPU}" "$replay"
}
for memory in sc tso arm64; do
    for m in none no-barrier-a no-barrier-b; do
        cell $m $memory stock C.V0:1/W0 --cpus 2
    done
    for m in none plain-phash-publish plain-atomic-state plain-dead-check; do
        cell $m $memory stock C.P2/K0:1 --cpus 3 --no-sleeper-check
        cell $m $memory stock C.P2.K0:1/W0.K0:1 --cpus 3 --no-sleeper-check
    done
    for m in none plain-requeue-state; do
        cell $m $memory stock C.C/Q0:1.U1/X0:1:1 --cpus 3
    done
    for m in none no-rwsem-mb-a no-rwsem-mb-b no-rwsem-mb-c plain-rwsem-block-acquire plain-rwsem-block-release; do
        cell $m $memory rwsem-gate C.P64/M0.M0 --cpus 3 --liveness parked-drains --no-sleeper-check
        cell $m $memory rwsem-gate C.P2/K0:1 --cpus 3 --no-sleeper-check
    done
done
