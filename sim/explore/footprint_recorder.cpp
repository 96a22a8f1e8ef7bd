#include "sim/explore/footprint_recorder.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace futexsim::sim::explore {

footprint_recorder::footprint_recorder(const run_context& ctx) : ctx_(ctx)
{
    const auto* mm = reinterpret_cast<const unsigned char*>(&ctx_.mm);
    mm_bytes_.assign(mm, mm + sizeof(ctx_.mm));
}

// Names for what the environment could not name (sim/explore/footprint.h).
std::optional<std::uint64_t> footprint_recorder::object_name(std::uint64_t raw) const
{
    const char* p = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(raw));
    auto within = [p](const void* lo, std::size_t bytes) {
        return p >= static_cast<const char*>(lo) && p < static_cast<const char*>(lo) + bytes;
    };
    auto offset = [p](const void* lo) {
        return static_cast<std::uint64_t>(p - static_cast<const char*>(lo));
    };
    const explored_mm& mm = ctx_.mm;
    if (within(&mm, sizeof(mm)))
        return obj_id(obj_class::mm, 0, offset(&mm));
    for (unsigned w = 0; w < num_words; w++)
        if (p == reinterpret_cast<const char*>(&ctx_.env.user_word_at(word_address(w))))
            return obj_id(obj_class::word, w, 0);
    for (std::size_t i = 0; i < hashes_.size(); i++) {
        const explored_hash* h = hashes_[i];
        if (within(h, sizeof(*h)))
            return obj_id(obj_class::fph, i, offset(h));
        if (!h->queues.empty() && within(h->queues.data(), h->queues.size() * sizeof(h->queues[0])))
            return obj_id(obj_class::fph_queues, i, offset(h->queues.data()));
    }
    for (std::size_t n = 0; n < ctx_.global.queues.size(); n++) {
        const auto& q = ctx_.global.queues[n];
        if (!q.empty() && within(q.data(), q.size() * sizeof(q[0])))
            return obj_id(obj_class::global_hash, n, offset(q.data()));
    }
    if (const std::string_view name = model::policy_word_name(&mm, p); !name.empty())
        return obj_id(obj_class::policy, std::hash<std::string_view>{}(name), 0);
    return std::nullopt;
}

// Every hash in the order the process first showed it (parked or
// installed: both in steps that commute with nothing), so that runs with a
// common beginning name them alike.
void footprint_recorder::on_step(const explore_task&, const op_event&)
{
    const explored_mm& mm = ctx_.mm;
    for (const explored_hash* h : {static_cast<const explored_hash*>(mm.futex_phash.v),
                                   static_cast<const explored_hash*>(mm.futex_phash_new)})
        if (h && std::find(hashes_.begin(), hashes_.end(), h) == hashes_.end())
            hashes_.push_back(h);
    step_footprint* fp = ctx_.env.current_footprint();
    if (!fp)
        return;
    for (step_access& a : fp->accesses)
        if (obj_class_of(a.obj) == obj_class::raw) {
            if (const auto name = object_name(a.obj))
                a.obj = *name;
            else
                fp->global = true;  // nobody can tell what it touched
        }
    // The mm's plain fields (futex_phash_new, read locklessly by the
    // policies' fast paths and futex_pivot_pending(), cleared and set again
    // under futex_hash_lock): a change no recorded write explains makes the
    // step commute with nothing.
    const auto* now = reinterpret_cast<const unsigned char*>(&mm);
    for (std::size_t o = 0; o < sizeof(mm) && !fp->global; o++) {
        if (now[o] == mm_bytes_[o])
            continue;
        const bool written =
            std::any_of(fp->accesses.begin(), fp->accesses.end(), [o](const step_access& a) {
                const std::uint64_t at = a.obj & 0xffffffffu;
                return a.write && obj_class_of(a.obj) == obj_class::mm && at <= o &&
                       o < at + sizeof(long);
            });
        if (!written)
            fp->global = true;
    }
    std::copy(now, now + sizeof(mm), mm_bytes_.begin());
}

}  // namespace futexsim::sim::explore
