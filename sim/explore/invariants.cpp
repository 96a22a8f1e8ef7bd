#include "sim/explore/invariants.h"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "sim/explore/model_call_sites.h"

namespace futexsim::sim::explore {

unsigned invariants::percpu_sum() const
{
    unsigned sum = 0;
    if (mm_.futex_ref)
        for (const unsigned& v : mm_.futex_ref->v)
            sum += env_.settled(v);
    return sum;
}

long invariants::atomic_count() const
{
    const long a = env_.settled(mm_.futex_atomic.v);
    return biased_ ? model::wrapping_add(a, -LONG_MAX) : a;
}

std::string invariants::state_text() const
{
    const explored_hash* fph = env_.settled(mm_.futex_phash.v);
    if (!fph)
        return "no hash";
    if (env_.settled(fph->state.v) == model::FR_PERCPU)
        return "FR_PERCPU";
    return env_.settled(mm_.futex_atomic.v) == 0 ? "dead" : "FR_ATOMIC";
}

void invariants::got_reference(const explore_task& t)
{
    ++held_;
    const auto it = last_state_.find(t.id);
    if (it != last_state_.end() && dead_.count(it->second) && pending_violation_.empty())
        pending_violation_ = fmt::format("a reference was obtained on a dead fph (task {})", t.name);
}

void invariants::on_op(const explore_task& t, const op_event& ev)
{
    using site = model_call_site;
    const site made_by = call_site_of(ev);
    const void* atomic = &mm_.futex_atomic;
    const void* percpu = mm_.futex_ref.get();
    const bool on_atomic = ev.addr == atomic;
    const bool on_percpu = percpu && ev.addr == percpu;

    switch (ev.kind) {
    case op_kind::read:
        // The fph a futex_ref_*() or the fold works on: the state word it reads.
        if (!on_atomic && ev.addr != &mm_.futex_phash &&
            (made_by == site::futex_ref_get || made_by == site::futex_ref_put ||
             made_by == site::futex_ref_atomic_end || made_by == site::futex_ref_rcu ||
             made_by == site::futex_ref_is_dead))
            last_state_[t.id] = ev.addr;
        break;
    case op_kind::percpu_inc:
        if (!on_percpu)
            break;
        switch (made_by) {
        case site::futex_ref_get:
            got_reference(t);
            break;
        case site::futex_ref_atomic_end:
            --in_flight_;  // the next fph's initial reference, already counted
            break;
        case site::futex_hash_allocate:
            initial_ = true;  // the first fph's initial reference
            break;
        default:  // the ghost state cannot tell what it stands for
            if (pending_violation_.empty())
                pending_violation_ =
                    fmt::format("ghost state: {}() incremented futex_ref, which the invariants "
                                "do not follow (sim/explore/model_call_sites.h)",
                                bare_function(ev.function));
        }
        break;
    case op_kind::percpu_dec:
        if (on_percpu)
            --held_;
        break;
    case op_kind::percpu_write:
        // Per-CPU counters are unsigned ints: a reference put on another
        // CPU than it was got on (requeue-PI's drop_fph) wraps one below
        // zero, and the fold's unsigned sum wraps back. So does this count.
        if (on_percpu)
            in_flight_ = static_cast<std::int32_t>(static_cast<std::uint32_t>(in_flight_ + ev.before - ev.after));
        break;
    case op_kind::cmpxchg_ok:
        if (on_atomic)
            got_reference(t);
        break;
    case op_kind::dec:
        if (on_atomic) {
            --held_;
            if (ev.after == 0 && last_state_.count(t.id))
                dead_.insert(last_state_[t.id]);
        }
        break;
    case op_kind::write:
        if (on_atomic && made_by == site::futex_ref_atomic_begin)
            biased_ = true;
        break;
    case op_kind::add_return:
        if (on_atomic) {  // the fold lands
            biased_ = false;
            in_flight_ = 0;
            if (ev.after == 0 && last_state_.count(t.id))
                dead_.insert(last_state_[t.id]);
        }
        break;
    default:
        break;
    }
}

std::string invariants::check_refcount() const
{
    if (!mm_.futex_ref)
        return {};
    const long total = model::wrapping_add(static_cast<long>(percpu_sum()) + in_flight_, atomic_count());
    const long expected = held_ + (initial_ ? 1 : 0);
    if (total != expected)
        return fmt::format("refcount: per-CPU sum {} + in-flight fold {} + atomic {} = {}, but {} reference(s) "
                           "are held plus the initial one",
                           percpu_sum(), in_flight_, atomic_count(), total, held_);
    if (const long a = env_.settled(mm_.futex_atomic.v); !biased_ && a < 0)
        return fmt::format("futex_atomic is negative ({}) outside the bias", a);
    return {};
}

// Every waiter asleep in futex_sleep() and still queued is in exactly one
// bucket, and that bucket belongs to the current hash (to any live one while
// a pivot holds futex_hash_lock and moves waiters). Checked whenever its
// bucket lock is free: under the lock, a waker or mover may be half-way.
std::string invariants::check_waiters() const
{
    const explored_hash* cur = env_.settled(mm_.futex_phash.v);
    const bool pivoting = mm_.futex_hash_lock.owner != nullptr;
    for (const auto& t : env_.tasks()) {
        if (!t->futex_q)
            continue;
        const auto* q = static_cast<const explored_futex_q*>(t->futex_q);
        if (!q->lock_ptr)
            continue;  // woken: unqueued by its waker
        if (q->lock_ptr->owner >= 0)
            continue;  // being moved (requeue, rehash) or woken under its bucket lock right now
        // A PI waiter keeps its lock_ptr once unqueued: requeue_pi_wake_futex()
        // and an unlocker that finds it leaving take it off the chain and
        // leave lock_ptr for its futex_q_lockptr_lock().
        if (!q->hb && (q->requeue_pi_key || q->pi_state))
            continue;
        if (!q->hb)
            return fmt::format("waiter {} is queued on a lock but in no bucket", t->name);
        if (env_.is_freed(q->hb))
            return fmt::format("waiter {} is queued in a bucket of a freed hash", t->name);
        // In its bucket's chain exactly once, and that bucket in the current
        // hash; every chain of a private hash is searched for duplicates
        // (the global hash is too big to search after every step).
        std::size_t found = static_cast<std::size_t>(std::count(q->hb->chain.begin(), q->hb->chain.end(), q));
        const auto within = [q](const auto& buckets) {
            return !buckets.empty() && q->hb >= buckets.data() && q->hb < buckets.data() + buckets.size();
        };
        bool in_current = false;
        if (cur && cur->hash_mask) {
            in_current = within(cur->queues);
            if (in_current)
                for (const auto& hb : cur->queues)
                    if (&hb != q->hb)
                        found += static_cast<std::size_t>(std::count(hb.chain.begin(), hb.chain.end(), q));
        } else {
            for (const auto& node : global_.queues)
                in_current = in_current || within(node);
        }
        if (found != 1)
            return fmt::format("waiter {} is in {} bucket chain(s), not exactly one", t->name, found);
        if (!pivoting && !in_current)
            return fmt::format("waiter {} is queued in a bucket that is not in the current hash ({})", t->name,
                               cur ? fmt::format("{} slots", model::fph_slots(cur)) : std::string("global"));
    }
    return {};
}

void invariants::on_step(const explore_task&, const op_event&)
{
    if (env_.violation())
        return;
    if (const std::string v = check_step(); !v.empty())
        env_.fail(v);
}

std::string invariants::check_step()
{
    if (!pending_violation_.empty())
        return pending_violation_;
    if (std::string v = check_refcount(); !v.empty())
        return v;
    return check_waiters();
}

}  // namespace futexsim::sim::explore
