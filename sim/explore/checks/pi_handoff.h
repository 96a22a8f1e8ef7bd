// The PI hand-off check (always on): when the run ended with nobody able to
// run, no thread sleeps in futex_do_wait() on a futex_q whose PI lock was
// handed to it. A requeue-PI waiter sleeps there on its requeued futex_q;
// futex_unlock_pi() hands it the rt_mutex (owner cleared, the waiter left
// at the top to take it when it runs) and wakes it. If that wake found it
// TASK_RUNNING (a policy's writer, mid-pivot), it is used up, the waiter
// goes to sleep on and nobody wakes it again: a lost hand-off. Also a
// thread that sleeps there while it already owns the rt_mutex.
#pragma once

#include "sim/explore/explore_observer.h"
#include "sim/explore/run_context.h"

namespace futexsim::sim::explore {

class pi_handoff_check final : public explore_observer {
public:
    explicit pi_handoff_check(const run_context& ctx) : ctx_(ctx) {}

    void at_end() override;

private:
    const run_context& ctx_;
};

}  // namespace futexsim::sim::explore
