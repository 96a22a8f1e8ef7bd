#include "sim/explore/checks/after_quiet.h"

#include <fmt/format.h>

namespace futexsim::sim::explore {

namespace {
bool is_futex_op(char k)
{
    return k == 'W' || k == 'M' || k == 'T' || k == 'K' || k == 'V' || k == 'O' || k == 'R';
}
}  // namespace

void after_quiet_check::before_call(const case_op& op)
{
    explore_env& env = ctx_.env;
    env.commute_with_nothing();  // the quiet windows are the whole process's
    if (active_ == 0 && is_futex_op(op.kind)) {
        // The first futex operation after a quiet window: it owes the pivot.
        const unsigned long full = env.completed_gps() - quiet_gp_base_;
        if (ctx_.pivots.pending &&
            ctx_.pivots.pending_since <= static_cast<std::int64_t>(quiet_since_) &&
            env.completed_gps() >= quiet_gp_base_ && full >= 2 && owed_by_ < 0)
            owed_by_ = env.current().id, owed_quiet_gps_ = full;
    }
    ++active_;
}

void after_quiet_check::call_returned(const case_op&, long) { ctx_.env.commute_with_nothing(); }

void after_quiet_check::after_call(const case_op& op, long)
{
    explore_env& env = ctx_.env;
    if (--active_ == 0) {
        quiet_since_ = env.step();
        quiet_gp_base_ = env.completed_gps() + (env.gp_in_progress() ? 1 : 0);
    }
    if (owed_by_ == env.current().id) {
        owed_by_ = -1;
        if (ctx_.pivots.pending)
            env.fail(fmt::format(
                "liveness: a pivot pending since step {} is still pending after a quiet window "
                "of {} grace periods and the futex operation {} that followed it",
                ctx_.pivots.pending_since, owed_quiet_gps_, format_op(op)));
    }
}

}  // namespace futexsim::sim::explore
