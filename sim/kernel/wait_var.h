// wait_var_event(), the open-coded wait_woken() loop on a var's wait queue,
// wake_up_var() (kernel/sched/wait_bit.c, include/linux/wait_bit.h) and the
// might_sleep() check of a blocking call made inside a wait condition, for
// the fiber environments (sim/timed/sim_env.h, sim/explore/explore_env.h). How a
// task sleeps and is woken is the environment's (its clock's); what a wait
// is, is here, once.
#pragma once

#include <unordered_map>
#include <vector>

#include "sim/kernel/task.h"

namespace futexsim::sim::kernel {

// might_sleep(): note a blocking call (`call`, "mutex_lock()") that `t`
// makes while it evaluates a wait_var_event() condition; nullptr: not in a
// task (set-up, teardown).
inline void might_sleep(task_struct* t, const char* call)
{
    if (t && t->in_wait_cond > 0 && !t->blocking_call)
        t->blocking_call = call;
}

// The wait queues of every var some task waits on.
class var_waitqueues {
public:
    // wait_var_event(var, cond) (`woken_form` false: the condition runs in
    // TASK_UNINTERRUPTIBLE) or v7.2.1's open-coded wait_woken() loop (true:
    // in TASK_RUNNING). `self` is the waiting task (nullptr outside a task);
    // `sleep()` sleeps until it is woken; `warn_might_sleep(call)` reports a
    // blocking call the kernel's might_sleep() would warn about.
    //
    // prepare_to_wait() / add_wait_queue() come before the check, so a wake
    // in between is kept. A condition that sleeps (a mutex) needs more: the
    // nested sleep consumes the task's wake-up, so wake_up_var() also marks
    // the waiter (`var_woken`, the WQ_FLAG_WOKEN of
    // woken_wake_bit_function()), and after a nested sleep wait_var_event()
    // goes round again without sleeping, as the kernel's does (the nested
    // sleep left the task TASK_RUNNING, so its schedule() returns at once).
    //
    // might_sleep(): wait_var_event() checks its condition once in
    // TASK_RUNNING and, when that fails, again after prepare_to_wait(); here
    // one evaluation stands for both, so a blocking call in it is reported
    // unless it is the first evaluation and it succeeded.
    template <class Cond, class Sleep, class Warn>
    void wait(task_struct* self, const void* var, Cond cond, bool woken_form, Sleep sleep,
              Warn warn_might_sleep)
    {
        const int cond_state = woken_form ? 0 : 1;
        for (bool first = true;; first = false) {
            std::uint64_t blocks_before = 0;
            const char* outer_call = nullptr;
            if (self) {
                // __add_wait_queue(): a non-exclusive waiter goes to the
                // head of the queue, and __wake_up_common() walks it from
                // the head, so the last to begin waiting is woken first.
                // (A woken-form waiter stays where add_wait_queue() put it
                // for the whole loop; here it is added again at the head
                // after each wake-up, which moves it only once it has been
                // woken.)
                std::vector<task_struct*>& queue = waiters_[var];
                queue.insert(queue.begin(), self);
                self->var_woken = false;
                blocks_before = self->blocks;
                outer_call = self->blocking_call;
                self->blocking_call = nullptr;
                self->in_wait_cond += cond_state;
            }
            const bool ok = cond();
            if (self) {
                self->in_wait_cond -= cond_state;
                const char* call = self->blocking_call;
                self->blocking_call = outer_call;
                if (call && !(first && ok))
                    warn_might_sleep(call);
            }
            if (ok) {
                if (self) {
                    std::erase(waiters_[var], self);
                    self->wake_pending = false;
                }
                return;
            }
            if (self && self->blocks != blocks_before && (!woken_form || self->var_woken)) {
                std::erase(waiters_[var], self);
                continue;
            }
            sleep();
        }
    }

    // wake_up_var(): every task waiting on `var` is marked and woken
    // (`wake(task_struct&)`), from the head of its queue: the last to begin
    // waiting first.
    template <class Wake>
    void wake_up(const void* var, Wake wake)
    {
        auto it = waiters_.find(var);
        if (it == waiters_.end())
            return;
        std::vector<task_struct*> woken = std::move(it->second);
        waiters_.erase(it);
        for (task_struct* t : woken) {
            t->var_woken = true;
            wake(*t);
        }
    }

private:
    std::unordered_map<const void*, std::vector<task_struct*>> waiters_;
};

}  // namespace futexsim::sim::kernel
