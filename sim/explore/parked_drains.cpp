#include "sim/explore/parked_drains.h"

#include <fmt/format.h>

namespace futexsim::sim::explore {

// Each policy says where its gate closes (gate_closed() beside its hooks;
// the top of parked_drains.h says why each closes where it does).
bool parked_drains::gate_closed() const
{
    bool closed = false;
    model::registered_policies::dispatch(mm_.futex_policy, [&]<class P>() { closed = P::gate_closed(&mm_); });
    return closed;
}

std::vector<const void*> parked_drains::gate_words() const
{
    std::vector<const void*> words;
    model::registered_policies::dispatch(mm_.futex_policy, [&]<class P>() { words = P::gate_words(&mm_); });
    return words;
}

void parked_drains::observe(std::uint64_t step)
{
    const bool closed = gate_closed();
    if (closed && !closed_) {
        closed_seq_ = ++seq_;
        closed_step_ = step;
    }
    closed_ = closed;
}

void parked_drains::before_call(const case_op& op)
{
    for (const void* w : gate_words())
        ctx_.env.record_access(w, false);
    observe(ctx_.env.step());
    calls_[ctx_.env.current().id] = call{++seq_, format_op(op)};
}

void parked_drains::on_op(const explore_task& t, const op_event&)
{
    const long held = ctx_.inv.held();
    const bool taken = held > held_seen_;
    held_seen_ = held;
    if (!taken)
        return;
    observe(ctx_.env.step());
    if (ctx_.env.violation())
        return;
    if (const std::string v = reference_taken(t); !v.empty())
        ctx_.env.fail(v);
}

std::string parked_drains::reference_taken(const explore_task& t)
{
    if (!closed_)
        return {};
    const auto it = calls_.find(t.id);
    if (it == calls_.end() || it->second.seq < closed_seq_)
        return {};  // in flight when the gate closed: the race every gate allows
    const explored_hash* cur = mm_.futex_phash.v;
    return fmt::format("parked hash does not drain: {} took a reference on the hash being replaced ({} slots) in "
                       "{}, a call that began after {}'s gate closed at step {}",
                       t.name, model::fph_slots(cur), it->second.op,
                       model::pivot_policy_name(mm_.futex_policy), closed_step_);
}

}  // namespace futexsim::sim::explore
