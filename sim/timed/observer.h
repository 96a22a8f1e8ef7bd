// Watching a simulated run without changing it: the engine, RCU and the
// process call these hooks where a task gets or leaves a CPU, a system call
// enters or returns, a model tracepoint fires, an RCU callback runs and a
// grace period ends. An observer must not charge time, push events, draw
// from the generator or touch simulated memory through the environment: a
// run with one prints the same results as a run without (sim/timed/trace_writer.h
// is the one the command line attaches with --trace).
#pragma once

#include <cstdint>

#include "run/vtime.h"

namespace futexsim::model {
struct trace_point;
}

namespace futexsim::sim {

struct task;

class sim_observer {
public:
    virtual ~sim_observer() = default;
    // `t` runs on `cpu` from `at` until cpu_leave().
    virtual void cpu_enter(unsigned /*cpu*/, const task& /*t*/, vtime /*at*/) {}
    virtual void cpu_leave(unsigned /*cpu*/, const task& /*t*/, vtime /*at*/) {}
    // The running task enters (`name`: FUTEX_WAKE, prctl SET_SLOTS, ...) or
    // leaves a system call; it may block in between.
    virtual void syscall_enter(const task& /*t*/, const char* /*name*/, vtime /*at*/) {}
    virtual void syscall_exit(const task& /*t*/, vtime /*at*/) {}
    // A model tracepoint, at the engine's clock.
    virtual void tracepoint(const model::trace_point& /*tp*/, vtime /*at*/) {}
    // An RCU callback starts or finishes on a softirq task.
    virtual void rcu_callback(bool /*running*/, vtime /*at*/) {}
    // Grace period number `completed` ended.
    virtual void gp_end(unsigned long /*completed*/, vtime /*at*/) {}
};

}  // namespace futexsim::sim
