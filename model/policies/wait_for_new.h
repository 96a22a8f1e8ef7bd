// wait-for-new: the maintainer's draft (docs/policies.md). At the start of
// futex_wake(), futex_wake_op() and futex_wait(), a caller that sees a new
// hash parked in futex_phash_new sleeps, uninterruptibly, until
// futex_pivot_pending() says the pivot can proceed: new callers stop taking
// references, so the count drains, and the first caller to get a reference
// after the wait fails futex_ref_get() on the dead hash and pivots.
//
// Faithfully, the draft does not gate futex_requeue() (nor the PI paths the
// model leaves out): that is how it breaks the futex_requeue and
// futex_requeue_pi selftests. Its check comes before any key is taken, so it
// gates shared calls too (the selftests' calls are shared).
//
// Difference of placement: the draft's check sits in futex_wait(), before
// __futex_wait()'s retry label; here it runs from futex_wait_setup(), the
// wait's reference scope, so it is also made after a spurious wakeup. The
// first pass is the same point: nothing takes a reference before it.
#pragma once

#include <string_view>

#include "model/policies/stock.h"

namespace futexsim::model {

struct wait_for_new_policy : stock_policy {
    static constexpr std::string_view name = "wait-for-new";
    static constexpr std::string_view summary =
        "maintainer's draft: wake, wake_op and wait sleep while a new hash is parked";

    // Which operations wait for a parked hash. Requeue is not gated: the
    // draft's bug, kept. Nor is futex_wait_requeue_pi(): the draft's check
    // is in futex_wait().
    static bool gated(futex_op op) { return op != futex_op::requeue && op != futex_op::wait_requeue_pi; }

    // (One body for wait-for-new and wait-for-new-wake, Self the policy.)
    template <class Env, class Self = wait_for_new_policy>
    static void futex_op_begin(mm_struct<Env>* mm, futex_op op)
    {
        if (!Self::gated(op))
            return;
        // READ_ONCE(mm->futex_phash_new): on the line of futex_phash, which
        // every operation reads anyway.
        if (!mm->futex_phash_new) [[likely]]
            return;
        // TASK_UNINTERRUPTIBLE; the drain's wake_up_var(mm) wakes us.
        futex_pivot_pending_wait(mm);
    }
};

}  // namespace futexsim::model
