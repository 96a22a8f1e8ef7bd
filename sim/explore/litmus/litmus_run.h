// Running a litmus test (litmus_test.h) on the explorer: each thread a task
// on a CPU of its own, every statement a call into the explorer's
// environment (the same primitives the model calls), every schedule and
// every store-buffer drain explored depth first with sleep sets and no
// preemption bound. What it answers: can the `exists` clause hold?
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "sim/explore/litmus/litmus_test.h"
#include "sim/explore/memory_model.h"

namespace futexsim::sim::explore {

struct litmus_verdict {
    litmus_result result = litmus_result::never;  // whether the clause held in some execution
    std::set<std::string> outcomes;               // every final state, "0:r0=1 1:r0=0 x=1"
    std::uint64_t executions = 0;
    bool complete = true;  // false: stopped at the execution limit
};

// `reduction` false: every schedule, none pruned as equivalent (the
// soundness test's brute force).
litmus_verdict run_litmus(const litmus_test& t, memory_model m, std::uint64_t max_executions = 2'000'000,
                          bool reduction = true);

}  // namespace futexsim::sim::explore
