#include "sim/explore/checks/set_slots.h"

#include <fmt/format.h>

#include <string>

namespace futexsim::sim::explore {

void set_slots_check::on_trace(const model::trace_point& tp)
{
    if (tp.kind == model::trace_kind::pivot_install && tp.value)  // custom
        custom_installs_.push_back(tp.slots);
}

void set_slots_check::call_entered(const case_op& op)
{
    if (op.kind != 'P')
        return;
    calls_[ctx_.env.current().id] = call{in_flight_ > 0, started_++, custom_installs_.size()};
    ++in_flight_;
    ctx_.env.commute_with_nothing();  // the counters are the process's
}

void set_slots_check::call_returned(const case_op& op, long ret)
{
    if (op.kind != 'P')
        return;
    --in_flight_;
    ctx_.env.commute_with_nothing();
    if (ret != 0)
        return;
    const call& c = calls_[ctx_.env.current().id];
    const bool raced = c.raced_at_start || started_ != c.started_before + 1;
    bool installed = false;
    for (std::size_t i = c.installs_before; i < custom_installs_.size(); i++)
        installed = installed || raced || custom_installs_[i] == op.n;
    if (!installed) {
        const explored_hash* cur = ctx_.mm.futex_phash.v;
        ctx_.env.fail(fmt::format(
            "prctl(SET_SLOTS, {}) returned 0 before its hash was installed (current: {})", op.n,
            cur ? fmt::format("{} slots{}", model::fph_slots(cur), cur->custom ? ", custom" : "")
                : std::string("none")));
    }
}

}  // namespace futexsim::sim::explore
