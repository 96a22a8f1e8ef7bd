// The part of a task_struct the fiber environments' kernel runtime keeps
// (sim/kernel/): what preempt_disable() and rcu_read_lock() nest, a wake-up
// that came while the task was still running, and the bookkeeping of
// wait_var_event() (sim/kernel/wait_var.h). The timed simulator's tasks
// (sim/timed/engine.h) and the explorer's (sim/explore/explore_env.h) are both
// one, so the primitives here run on either.
#pragma once

#include <cstdint>

namespace futexsim::sim::kernel {

struct task_struct {
    int rcu_nesting = 0;        // current->rcu_read_lock_nesting
    int preempt_count = 0;      // preempt_disable() depth (spinlocks, softirq)
    bool wake_pending = false;  // woken while still running: its next sleep returns at once
    bool timed_out = false;     // its last sleep ended by its timer
    std::uint64_t blocks = 0;   // sleeps so far: did a wait condition sleep?
    bool var_woken = false;     // a wake_up_var() since its wait check began (WQ_FLAG_WOKEN)
    int in_wait_cond = 0;       // evaluating a wait_var_event() condition (!TASK_RUNNING)
    const char* blocking_call = nullptr;  // the first blocking call of that evaluation

    // Inside a section no grace period may end across (and, for the
    // explorer, no other task may take its CPU).
    bool in_section() const { return rcu_nesting > 0 || preempt_count > 0; }

    // schedule() after set_current_state(): a wake-up that came since, while
    // the task still ran, ends the sleep before it begins (try_to_wake_up()
    // set it TASK_RUNNING again). Whether the task really goes to sleep; the
    // scheduler (the engine or the explorer) then takes it off its CPU.
    bool sleep_begins()
    {
        ++blocks;
        if (!wake_pending)
            return true;
        wake_pending = false;
        return false;
    }
    // try_to_wake_up() of a task that is not asleep: its next sleep returns
    // at once.
    void wake_running() { wake_pending = true; }
};

}  // namespace futexsim::sim::kernel
