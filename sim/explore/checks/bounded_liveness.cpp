#include "sim/explore/checks/bounded_liveness.h"

#include <fmt/format.h>

namespace futexsim::sim::explore {

void bounded_liveness_check::check(bool at_end)
{
    if (ctx_.env.violation() || !ctx_.pivots.pending)
        return;
    const unsigned long gps = ctx_.env.completed_gps() - ctx_.pivots.pending_gp_start;
    if (gps > ctx_.cfg.pivot_bound_gps)
        ctx_.env.fail(fmt::format(
            "liveness: a pivot pending since step {} is still pending after {} grace periods "
            "(bound {}){}",
            ctx_.pivots.pending_since, gps, ctx_.cfg.pivot_bound_gps, at_end ? " at the end" : ""));
}

}  // namespace futexsim::sim::explore
