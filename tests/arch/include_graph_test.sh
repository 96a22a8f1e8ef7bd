#!/usr/bin/env bash
# include_graph.py must fail on each kind of violation it claims to find:
# a small tree per rule, built in a temporary folder, each with exactly one
# bad include, and one clean tree that must pass.
# Usage: include_graph_test.sh INCLUDE_GRAPH_PY
set -u
check=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fails=0
tree() {  # name: a fresh tree with a file in each place the rules name
    local t=$work/$1; mkdir -p "$t"/{model,run,sim/timed,sim/explore,sim/step,sim/kernel,real,cli}
    echo '#pragma once' > "$t/model/core.h"
    echo '#include "model/core.h"' > "$t/run/run.h"
    echo '#include "run/run.h"' > "$t/sim/kernel/task.h"
    echo '#include "sim/kernel/task.h"' > "$t/sim/timed/engine.h"
    echo '#include "sim/kernel/task.h"' > "$t/sim/explore/explore_env.h"
    echo '#include "sim/kernel/task.h"' > "$t/sim/step/step_env.h"
    echo '#include "run/run.h"' > "$t/real/threads_env.h"
    printf '#include "sim/timed/engine.h"\n#include "sim/explore/explore_env.h"\n#include "real/threads_env.h"\n' > "$t/cli/main.cpp"
    echo "$t"
}
expect() {  # tree rule: include_graph.py exits 1 and names the rule once
    local out rc; out=$(python3 "$check" "$1" 2>/dev/null); rc=$?
    if [[ $rc -ne 1 || $(grep -c "^$2: " <<<"$out") -ne 1 ]]; then
        echo "FAIL: expected one '$2' violation and exit 1, got exit $rc:"; echo "$out"; fails=$((fails + 1))
    else echo "ok: $2 found: $out"; fi
}
t=$(tree clean)
if python3 "$check" "$t" >/dev/null 2>&1; then echo "ok: the clean tree passes"; else echo "FAIL: the clean tree"; fails=$((fails + 1)); fi
t=$(tree explore_to_timed); echo '#include "sim/timed/engine.h"' >> "$t/sim/explore/explore_env.h"; expect "$t" machine
t=$(tree step_to_timed); echo '#include "sim/timed/engine.h"' >> "$t/sim/step/step_env.h"; expect "$t" machine
t=$(tree timed_to_explore); echo '#include "sim/explore/explore_env.h"' >> "$t/sim/timed/engine.h"; expect "$t" machine
t=$(tree model_out); echo '#include "run/run.h"' >> "$t/model/core.h"; expect "$t" layer
t=$(tree sim_real); echo '#include "real/threads_env.h"' >> "$t/sim/timed/engine.h"; expect "$t" backend
t=$(tree up); echo '#include "sim/kernel/task.h"' >> "$t/run/run.h"; expect "$t" upward
t=$(tree shared_to_timed); echo '#include "sim/timed/engine.h"' >> "$t/sim/kernel/task.h"; expect "$t" machine
t=$(tree loop); echo '#include "sim/timed/engine.h"' > "$t/sim/timed/cache.h"; echo '#include "sim/timed/cache.h"' >> "$t/sim/timed/engine.h"
expect "$t" cycle
exit $((fails > 0))
