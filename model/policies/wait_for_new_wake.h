// wait-for-new-wake: the maintainer's other suggestion. Of his wait-for-new
// draft he wrote in the public thread: "It might make sense to do this on
// the wake side only." Here only the wake paths, futex_wake() and
// futex_wake_op(), sleep while a new hash is parked, until
// futex_pivot_pending() says the pivot can proceed; waits (futex_wait(),
// futex_wait_requeue_pi()), requeues and the PI calls go on.
//
// Why it might be enough: the stall needs a stream of references that
// never lets the count drain; a waiter takes one and drops it before it
// sleeps, so with the wakers held back the waiters run out of work and
// the count drains. Why it might be better: a wait is never held behind
// a wake that the program issued after it (the draft's owner hang,
// docs/vm.md), since no wait is held at all.
#pragma once

#include <string_view>

#include "model/policies/wait_for_new.h"

namespace futexsim::model {

struct wait_for_new_wake_policy : wait_for_new_policy {
    static constexpr std::string_view name = "wait-for-new-wake";
    static constexpr std::string_view summary =
        "maintainer's suggestion: only wake and wake_op sleep while a new hash is parked";

    static bool gated(futex_op op) { return op == futex_op::wake || op == futex_op::wake_op; }

    template <class Env>
    static void futex_op_begin(mm_struct<Env>* mm, futex_op op)
    {
        wait_for_new_policy::futex_op_begin<Env, wait_for_new_wake_policy>(mm, op);
    }
};

}  // namespace futexsim::model
