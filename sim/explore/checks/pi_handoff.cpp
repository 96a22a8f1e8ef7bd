#include "sim/explore/checks/pi_handoff.h"

#include <fmt/format.h>

#include <string_view>

#include "sim/explore/explored_model.h"

namespace futexsim::sim::explore {

void pi_handoff_check::at_end()
{
    explore_env& env = ctx_.env;
    if (env.violation() || env.step() >= ctx_.cfg.max_steps)
        return;  // stopped, not ended
    for (const auto& t : env.tasks()) {
        if (t->kernel || t->state != task_state::blocked || std::string_view(t->blocked_in) != "futex_sleep" ||
            !t->futex_q)
            continue;
        const auto* q = static_cast<const explored_futex_q*>(t->futex_q);
        if (!q->pi_state)
            continue;
        const auto& lock = q->pi_state->pi_mutex;
        if (lock.owner == t.get()) {
            env.fail(fmt::format("PI hand-off: {} sleeps in futex_do_wait() for good while it owns the rt_mutex "
                                 "it was requeued to",
                                 t->name));
            return;
        }
        if (!lock.owner && q->rt_waiter && !lock.waiters.empty() && lock.waiters.front() == q->rt_waiter) {
            env.fail(fmt::format("lost PI hand-off: {} sleeps in futex_do_wait() for good, the top waiter of an "
                                 "rt_mutex its owner released to it (its wake was used up while it pivoted)",
                                 t->name));
            return;
        }
    }
}

}  // namespace futexsim::sim::explore
