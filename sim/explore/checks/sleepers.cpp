#include "sim/explore/checks/sleepers.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace futexsim::sim::explore {

void sleepers_check::at_end()
{
    explore_env& env = ctx_.env;
    if (env.violation() || env.step() >= ctx_.cfg.max_steps)
        return;  // stopped, not ended
    for (const auto& t : env.tasks()) {
        if (t->kernel || t->state != task_state::blocked)
            continue;
        if (std::string_view(t->blocked_in) == "futex_sleep")
            continue;
        std::string who;
        for (const auto& u : env.tasks())
            who +=
                fmt::format(" {}[cpu{} {}{}{}]", u->name, u->cpu,
                            u->state == task_state::exited     ? "exited"
                            : u->state == task_state::runnable ? "runnable"
                                                               : u->blocked_in,
                            u->preempt_count ? " preempt-off" : "", u->rcu_nesting ? " rcu" : "");
        env.fail(
            fmt::format("deadlock: {} blocked for good in {};{}", t->name, t->blocked_in, who));
        return;
    }
}

}  // namespace futexsim::sim::explore
