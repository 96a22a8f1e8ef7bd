// The one interface through which anything watches an explored run: the
// safety invariants, each property (sim/explore/checks/), the footprint
// recorder and the step-trace printer. The explorer tells every observer of
// each operation, tracepoint and step; the case interpreter
// (sim/explore/explore_run.cpp) of each system call of the case; both ask
// each at the end. Observers are told in the order they were added, so the
// violation a run reports is the first that order finds.
#pragma once

#include "model/futex.h"
#include "sim/explore/explore_case.h"
#include "sim/explore/explore_task.h"

namespace futexsim::sim::explore {

class explore_observer {
public:
    virtual ~explore_observer() = default;

    // After each operation a task performed through the environment.
    virtual void on_op(const explore_task&, const op_event&) {}
    // Each tracepoint the model fires, where it fires.
    virtual void on_trace(const model::trace_point&) {}
    // After each step; the operation is the one the step performed.
    virtual void on_step(const explore_task&, const op_event&) {}

    // Around each system call of the case, in the calling task: before its
    // "enter" step, after it, once the model returned (before the "return"
    // step) and after the "return" step.
    virtual void before_call(const case_op&) {}
    virtual void call_entered(const case_op&) {}
    virtual void call_returned(const case_op&, long /*ret*/) {}
    virtual void after_call(const case_op&, long /*ret*/) {}

    // Once nothing runs any more: the run ended, was stopped by a
    // violation, or reached its step bound.
    virtual void at_end() {}
};

}  // namespace futexsim::sim::explore
