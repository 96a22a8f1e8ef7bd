#include "sim/explore/parked_drains.h"

#include <fmt/format.h>

namespace futexsim::sim::explore {

namespace {

constexpr int rwsem_gate_id = model::registered_policies::id_of<model::rwsem_gate_policy>();

}  // namespace

parked_drains::parked_drains(xmm& mm) : mm_(mm) {}

// See the top of parked_drains.h for why each policy's gate closes where it does.
bool parked_drains::gate_closed() const
{
    if (!mm_.futex_phash_new)
        return false;
    if (mm_.futex_policy == rwsem_gate_id)
        return model::policy_state<model::rwsem_gate_policy>(&mm_).sem.block.v != 0;
    return true;
}

std::vector<const void*> parked_drains::gate_words() const
{
    std::vector<const void*> words{&mm_.futex_phash_new};
    if (mm_.futex_policy == rwsem_gate_id)
        words.push_back(&model::policy_state<model::rwsem_gate_policy>(&mm_).sem.block);
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

void parked_drains::call_begins(int task, std::string op)
{
    calls_[task] = call{++seq_, std::move(op)};
}

void parked_drains::call_ends(int task)
{
    calls_.erase(task);
}

std::string parked_drains::reference_taken(const explore_env::xtask& t)
{
    if (!closed_)
        return {};
    const auto it = calls_.find(t.id);
    if (it == calls_.end() || it->second.seq < closed_seq_)
        return {};  // in flight when the gate closed: the race every gate allows
    const xfph* cur = mm_.futex_phash.v;
    return fmt::format("parked hash does not drain: {} took a reference on the hash being replaced ({} slots) in "
                       "{}, a call that began after the gate closed at step {} (a hash parked{})",
                       t.name, model::fph_slots(cur), it->second.op, closed_step_,
                       mm_.futex_policy == rwsem_gate_id ? ", the gate's block set" : "");
}

}  // namespace futexsim::sim::explore
